// The Many objectives page's linked views, in the browser: a scatter matrix and parallel
// coordinates of the same policies. A box, lasso or click in either highlights the same
// policies in both at once, here, then tells Streamlit which ones (the table and the replay
// follow on the server's next run). A selection made on the server (table rows) arrives as the
// `selected` argument and is drawn the same way. The figures are redrawn only when the server
// sends other ones (their digest changes), never for a selection: the highlight is a canvas
// laid over each plot (dimming it, then drawing the selected policies on top), placed with
// plotly's own axis scales, so a selection costs milliseconds whatever the figure's size.
"use strict";

const matrixDiv = document.getElementById("matrix");
const parallelDiv = document.getElementById("parallel");
const SELECTED_COLOUR = "#d62728";
const DIM = "rgba(255, 255, 255, 0.72)";

let drawnDigest = null; // the figures on screen
let values = []; // each policy's value per objective, as the scatter matrix shows them
let heights = []; // each policy's height on each parallel axis, in [0, 1]
let selection = []; // the policy ids highlighted
let shown = null; // the selection on screen: sorted ids joined by commas
let released = null; // when the mouse was last released (for the timings below)
// For benchmarks and tests: one entry per selection drawn, with its time in milliseconds.
window.__linkedViews = { drawn: [] };

function post(type, extra) {
  window.parent.postMessage(
    Object.assign({ isStreamlitMessage: true, apiVersion: 1, type: type }, extra),
    "*",
  );
}

function keyOf(ids) {
  return [...ids].sort((a, b) => a - b).join(",");
}

// A canvas over `div`, the size of the plot, that lets the mouse through to plotly.
function overlayOf(div) {
  let canvas = div.parentElement.querySelector("canvas.highlight");
  if (!canvas) {
    canvas = document.createElement("canvas");
    canvas.className = "highlight";
    div.parentElement.appendChild(canvas);
  }
  const ratio = window.devicePixelRatio || 1;
  const width = div.clientWidth;
  const height = div.clientHeight;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
  }
  const context = canvas.getContext("2d");
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, width, height);
  return context;
}

function axisOf(layout, id) {
  return layout[id.replace(/^x/, "xaxis").replace(/^y/, "yaxis")];
}

function dimPlotArea(context, xAxis, yAxis) {
  context.fillStyle = DIM;
  context.fillRect(xAxis._offset, yAxis._offset, xAxis._length, yAxis._length);
}

function highlightMatrix(chosen) {
  const context = overlayOf(matrixDiv);
  if (!chosen.length || !matrixDiv._fullData) return;
  const layout = matrixDiv._fullLayout;
  const splom = matrixDiv._fullData.find((trace) => trace.type === "splom");
  if (!splom) return;
  const k = splom.xaxes.length;
  context.fillStyle = SELECTED_COLOUR;
  for (let row = 1; row < k; row++) {
    for (let column = 0; column < row; column++) {
      const xAxis = axisOf(layout, splom.xaxes[column]);
      const yAxis = axisOf(layout, splom.yaxes[row]);
      if (!xAxis || !yAxis) continue;
      dimPlotArea(context, xAxis, yAxis);
      context.fillStyle = SELECTED_COLOUR;
      context.beginPath();
      for (const id of chosen) {
        const point = values[id];
        if (!point) continue;
        const x = xAxis._offset + xAxis.l2p(point[column]);
        const y = yAxis._offset + yAxis.l2p(point[row]);
        context.moveTo(x + 3.5, y);
        context.arc(x, y, 3.5, 0, 2 * Math.PI);
      }
      context.fill();
    }
  }
}

function highlightParallel(chosen) {
  const context = overlayOf(parallelDiv);
  if (!chosen.length || !parallelDiv._fullLayout) return;
  const xAxis = parallelDiv._fullLayout.xaxis;
  const yAxis = parallelDiv._fullLayout.yaxis;
  dimPlotArea(context, xAxis, yAxis);
  context.strokeStyle = SELECTED_COLOUR;
  context.globalAlpha = 0.8;
  context.lineWidth = 1.5;
  context.beginPath();
  for (const id of chosen) {
    const row = heights[id];
    if (!row) continue;
    row.forEach((value, axis) => {
      const x = xAxis._offset + xAxis.l2p(axis);
      const y = yAxis._offset + yAxis.l2p(value);
      if (axis === 0) context.moveTo(x, y);
      else context.lineTo(x, y);
    });
  }
  context.stroke();
  context.globalAlpha = 1.0;
}

// Highlight `ids` in both views; resolves once the browser has painted them.
async function draw(ids, source) {
  const started = performance.now();
  selection = ids;
  highlightMatrix(ids);
  highlightParallel(ids);
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  shown = keyOf(ids);
  document.body.dataset.selected = String(ids.length);
  window.__linkedViews.drawn.push({
    count: ids.length,
    source: source,
    milliseconds: performance.now() - started,
    sinceRelease: source !== "server" && released !== null ? performance.now() - released : null,
  });
}

function brushed(event, source) {
  const ids = new Set();
  for (const point of (event && event.points) || []) {
    const data = point.customdata;
    if (data !== undefined && data !== null && data[0] !== undefined) ids.add(Number(data[0]));
  }
  const list = [...ids].sort((a, b) => a - b);
  draw(list, source).then(() => {
    post("streamlit:setComponentValue", {
      value: { ids: list, nonce: Date.now() + Math.random() },
      dataType: "json",
    });
  });
}

function listen(div, source) {
  div.on("plotly_selected", (event) => brushed(event, source));
  div.on("plotly_deselect", () => brushed(null, source));
  // Zoom, pan or a new size move the axes: the highlight follows.
  div.on("plotly_afterplot", () => {
    highlightMatrix(selection);
    highlightParallel(selection);
  });
}

window.addEventListener("mouseup", () => { released = performance.now(); }, { capture: true });

async function render(args) {
  try {
    if (args.digest !== drawnDigest) {
      const matrix = JSON.parse(args.matrix);
      const parallel = JSON.parse(args.parallel);
      const config = { displaylogo: false, responsive: true };
      const first = drawnDigest === null;
      await Plotly.react(matrixDiv, matrix.data, matrix.layout, config);
      await Plotly.react(parallelDiv, parallel.data, parallel.layout, config);
      if (first) {
        listen(matrixDiv, "matrix");
        listen(parallelDiv, "parallel");
      }
      values = args.values;
      heights = args.heights;
      drawnDigest = args.digest;
      shown = null;
      post("streamlit:setFrameHeight", { height: document.body.scrollHeight + 10 });
    }
    if (keyOf(args.selected) !== shown) await draw(args.selected, "server");
  } catch (error) {
    document.getElementById("problem").textContent = "The views could not be drawn: " + error;
    post("streamlit:setFrameHeight", { height: document.body.scrollHeight + 10 });
  }
}

window.addEventListener("message", (event) => {
  if (event.data && event.data.type === "streamlit:render") render(event.data.args);
});
post("streamlit:componentReady", {});
