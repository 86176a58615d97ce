// The Explore page's front, in the browser. Each slider move sends the same front with its
// markers (this rollout, the target) and the arrow between them elsewhere: the front is drawn
// only when it changes (its digest), the markers are moved in place with one Plotly.update.
// A redraw of the whole figure by Streamlit's own chart cost a viewer's main thread about half
// a second per move; moving two markers costs a small part of that. A click on a point tells
// Streamlit which one, as st.plotly_chart's selection event does.
"use strict";

const frontDiv = document.getElementById("front");
const problem = document.getElementById("problem");
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
