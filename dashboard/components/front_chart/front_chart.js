// The Explore page's front, in the browser. Each slider move sends the same front with its
// markers (this rollout, the target) and the arrow between them elsewhere: the front is drawn
// only when it changes (its digest), the markers are moved in place with one Plotly.update.
// A redraw of the whole figure by Streamlit's own chart cost a viewer's main thread about half
// a second per move; moving two markers costs a small part of that. A click on a point tells
// Streamlit which one, as st.plotly_chart's selection event does.
"use strict";

const frontDiv = document.getElementById("front");
const problem = document.getElementById("problem");
const spoken = document.getElementById("spoken");
const CONFIG = { responsive: true, displaylogo: false };

let drawnDigest = null; // the front on screen
let drawnMoving = []; // the uids of the marker traces on screen, after the front's own traces
let baseCount = 0; // how many traces the front itself has
let nonce = 0;
let pending = null; // the latest arguments not drawn yet
let busy = false;
// For benchmarks and tests: how often the front was drawn, and each marker move's time in ms.
window.__frontChart = { drawn: 0, moved: [] };

function post(type, extra) {
  window.parent.postMessage(
    Object.assign({ isStreamlitMessage: true, apiVersion: 1, type: type }, extra),
    "*",
  );
}

function clicked(event) {
  // A 3-D plot is for turning: the page offers a 2-D projection to click (as Streamlit's chart).
  if (frontDiv._fullLayout && frontDiv._fullLayout.scene) return;
  const points = ((event && event.points) || []).map((point) => ({
    curve_number: point.curveNumber,
    point_number: point.pointNumber,
    point_index: point.pointIndex,
    customdata: point.customdata === undefined ? null : point.customdata,
  }));
  if (!points.length) return;
  nonce += 1;
  post("streamlit:setComponentValue", {
    value: {
      selection: {
        points: points,
        point_indices: points.map((point) => point.point_index),
        box: [],
        lasso: [],
      },
      nonce: nonce,
    },
    dataType: "json",
  });
}

function sameUids(moving) {
  return (
    moving.length === drawnMoving.length &&
    moving.every((trace, index) => trace.uid === drawnMoving[index])
  );
}

// Move the markers: one restyle of their own traces and the arrows, nothing else redrawn.
async function moveMarkers(moving, annotations) {
  const started = performance.now();
  if (sameUids(moving)) {
    if (moving.length) {
      const update = {};
      for (const name of ["x", "y", "z", "name", "hovertemplate", "marker"]) {
        if (moving.every((trace) => name in trace)) update[name] = moving.map((trace) => trace[name]);
      }
      const indices = moving.map((_, index) => baseCount + index);
      await Plotly.update(frontDiv, update, { annotations: annotations }, indices);
    } else {
      await Plotly.relayout(frontDiv, { annotations: annotations });
    }
  } else {
    const drawn = drawnMoving.map((_, index) => baseCount + index);
    if (drawn.length) await Plotly.deleteTraces(frontDiv, drawn);
    if (moving.length) await Plotly.addTraces(frontDiv, moving);
    await Plotly.relayout(frontDiv, { annotations: annotations });
    drawnMoving = moving.map((trace) => trace.uid);
  }
  window.__frontChart.moved.push(performance.now() - started);
}

// The keyboard's way round the front: its clickable points (customdata, the sweeps' first:
// not the invisible target grid) from left to right; arrows move a hover label from one to
// the next, Enter or Space picks it as a click would.
let keyPoints = [];
let keyAt = -1;

function keyboardPoints() {
  const found = [];
  // The full data: its arrays decoded (the figure may send them as typed-array specs).
  (frontDiv._fullData || []).forEach((trace) => {
    const curve = trace.index;
    if (!(curve < baseCount) || !trace.visible) return;
    Array.from(trace.customdata || []).forEach((custom, index) => {
      if (!custom || custom.length !== 2 || custom[0] < 0) return;
      found.push({ curve: curve, index: index, custom: Array.from(custom),
                   x: Number(trace.x[index]),
                   y: Number(trace.y[index]),
                   text: String((trace.hovertext || [])[index] || trace.name || "") });
    });
  });
  return found.sort((a, b) => a.x - b.x || a.y - b.y);
}

function showKeyPoint() {
  const point = keyPoints[keyAt];
  Plotly.Fx.hover(frontDiv, [{ curveNumber: point.curve, pointNumber: point.index }]);
  spoken.textContent = point.text.replace(/<br>/g, ", ").replace(/<[^>]*>/g, "");
}

frontDiv.addEventListener("keydown", (event) => {
  if (!keyPoints.length || (frontDiv._fullLayout && frontDiv._fullLayout.scene)) return;
  const steps = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 };
  if (event.key in steps) {
    keyAt = keyAt < 0 ? 0 : (keyAt + steps[event.key] + keyPoints.length) % keyPoints.length;
    showKeyPoint();
  } else if ((event.key === "Enter" || event.key === " ") && keyAt >= 0) {
    const point = keyPoints[keyAt];
    clicked({ points: [{ curveNumber: point.curve, pointNumber: point.index,
                         pointIndex: point.index, customdata: point.custom }] });
  } else {
    return;
  }
  event.preventDefault();
});

async function drawFront(args) {
  const figure = JSON.parse(args.front);
  baseCount = figure.data.length;
  const layout = Object.assign({}, figure.layout, { annotations: args.annotations });
  await Plotly.react(frontDiv, figure.data.concat(args.moving), layout, CONFIG);
  if (!frontDiv.__clickHandled) {
    frontDiv.on("plotly_click", clicked);
    frontDiv.__clickHandled = true;
  }
  drawnDigest = args.digest;
  drawnMoving = args.moving.map((trace) => trace.uid);
  keyPoints = keyboardPoints();
  keyAt = -1;
  window.__frontChart.drawn += 1;
}

async function render(args) {
  try {
    if (args.digest !== drawnDigest) await drawFront(args);
    else await moveMarkers(args.moving, args.annotations);
    problem.textContent = "";
  } catch (error) {
    problem.textContent = "The front could not be drawn: " + error;
  }
  document.body.dataset.drawn = String(window.__frontChart.drawn);
  post("streamlit:setFrameHeight", { height: document.body.scrollHeight });
}

// One render at a time; arguments that come meanwhile replace each other (only the latest
// move is worth drawing).
async function pump() {
  busy = true;
  while (pending) {
    const args = pending;
    pending = null;
    await render(args);
  }
  busy = false;
}

window.addEventListener("message", (event) => {
  if (event.data && event.data.type === "streamlit:render") {
    pending = event.data.args;
    if (!busy) pump();
  }
});
post("streamlit:componentReady", {});
