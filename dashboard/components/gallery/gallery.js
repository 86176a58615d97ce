// The Gallery page's tiles and front, in the browser. Every tile's video follows one playhead
// (a clock here, not any one video): each animation frame a tile whose time is off by more
// than a frame is sought to the playhead, one slightly off plays a little faster or slower
// until it is on time. Hovering a tile rings its point on the front and in the behaviour
// embedding (when the page sends one); hovering a point in either lights its tile. A tile is a link to Explore at its preference (the page's URL carries it).
"use strict";

const tilesDiv = document.getElementById("tiles");
const frontDiv = document.getElementById("front");
const embeddingDiv = document.getElementById("embedding");
const playButton = document.getElementById("play");
const scrub = document.getElementById("scrub");
const clockText = document.getElementById("clock");
const speedSelect = document.getElementById("speed");
const progressText = document.getElementById("progress");
const problem = document.getElementById("problem");

let playing = true;
let speed = 1;
let origin = performance.now(); // when the playhead was at `base`, in page time
let base = 0; // playhead seconds at `origin`
let duration = 0; // the longest tile's length
let frame = 0.05; // one frame of the tiles, seconds (the page sends the frame rate)
let drawnKey = null;
let videos = []; // per tile, its <video> or null while it records
// The drawn plots (the front, the embedding): each with its trace of the tiles' points (one
// per tile, in tile order) and the trace that rings the hovered tile's point.
let plots = [];
// For tests and benchmarks: the playhead, and when every shown tile first played.
window.__gallery = { allPlayingAt: null, openedAt: performance.now(), lit: null };

// Plotly (3.5 MB of script) is parsed in this frame's main thread: about a second on a slow
// machine, during which nothing keeps the tiles in step. So it loads once the tiles have played
// in step for STEADY_FRAMES animation frames (or at once while some have no video yet, or
// after PLOTLY_AT_LATEST ms whatever happens).
const PLOTLY_AT_LATEST = 5000;
const STEADY_FRAMES = 10;
let steadyFrames = 0;
let plotlyWanted;
const plotlyLoaded = new Promise((resolve) => {
  plotlyWanted = resolve;
}).then(
  () =>
    new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = "plotly.min.js";
      script.onload = resolve;
      script.onerror = () => reject(new Error("plotly.min.js did not load"));
      document.head.appendChild(script);
    }),
);
setTimeout(() => plotlyWanted(), PLOTLY_AT_LATEST);

function post(type, extra) {
  window.parent.postMessage(
    Object.assign({ isStreamlitMessage: true, apiVersion: 1, type: type }, extra),
    "*",
  );
}

function playhead() {
  if (!playing) return base;
  const now = base + ((performance.now() - origin) / 1000) * speed;
  if (duration > 0 && now >= duration) {
    base = now % duration;
    origin = performance.now();
    return base;
  }
  return now;
}
window.__gallery.playhead = playhead;

function setPlayhead(seconds) {
  base = Math.max(0, Math.min(seconds, duration || 0));
  origin = performance.now();
  for (const video of videos) if (video) seek(video, base);
}

function seek(video, seconds) {
  const end = Number.isFinite(video.duration) ? video.duration - 0.001 : seconds;
  video.currentTime = Math.max(0, Math.min(seconds, end));
}

function follow() {
  const now = playhead();
  let allPlaying = videos.length > 0;
  let worstDrift = 0;
  for (const video of videos) {
    if (!video) {
      allPlaying = false;
      continue;
    }
    if (!Number.isFinite(video.duration) || video.readyState < 2) {
      allPlaying = false;
      continue;
    }
    const ended = now >= video.duration - 0.001;
    if (!playing || ended) {
      if (!video.paused) video.pause();
      if (Math.abs(video.currentTime - Math.min(now, video.duration - 0.001)) > frame / 2) {
        seek(video, now);
      }
      continue;
    }
    const drift = video.currentTime - now;
    worstDrift = Math.max(worstDrift, Math.abs(drift));
    if (Math.abs(drift) > frame) {
      seek(video, now);
      video.playbackRate = speed;
    } else {
      // Catch up (or wait) within a few frames: a nudge, not a seek.
      video.playbackRate = Math.max(0.25, speed * (1 - drift * 4));
    }
    if (video.paused) video.play().catch(() => {});
    if (video.paused) allPlaying = false;
  }
  if (allPlaying && playing && window.__gallery.allPlayingAt === null) {
    window.__gallery.allPlayingAt = performance.now();
  }
  steadyFrames = allPlaying && worstDrift <= frame / 5 ? steadyFrames + 1 : 0;
  const recording = videos.length > 0 && !videos.every(Boolean);
  if (recording || steadyFrames >= STEADY_FRAMES) plotlyWanted();
  if (duration > 0 && document.activeElement !== scrub) {
    scrub.value = String(Math.round((now / duration) * 1000));
  }
  clockText.textContent = now.toFixed(1) + " s";
  requestAnimationFrame(follow);
}

playButton.addEventListener("click", () => {
  base = playhead();
  origin = performance.now();
  playing = !playing;
  playButton.textContent = playing ? "Pause" : "Play";
});
scrub.addEventListener("input", () => setPlayhead((Number(scrub.value) / 1000) * duration));
speedSelect.addEventListener("change", () => {
  base = playhead();
  origin = performance.now();
  speed = Number(speedSelect.value);
});

function light(index) {
  window.__gallery.lit = index;
  tilesDiv.querySelectorAll(".tile").forEach((tile) => {
    tile.classList.toggle("lit", Number(tile.dataset.index) === index);
  });
  for (const plot of plots) {
    const points = plot.div.data[plot.tiles];
    const x = index === null ? [] : [points.x[index]];
    const y = index === null ? [] : [points.y[index]];
    Plotly.restyle(plot.div, { x: [x], y: [y] }, [plot.lit]);
    plot.div.dataset.lit = index === null ? "" : String(index);
  }
}

function drawTiles(args) {
  tilesDiv.innerHTML = "";
  tilesDiv.style.gridTemplateColumns = `repeat(${args.columns}, 1fr)`;
  videos = args.tiles.map((tile, index) => {
    const link = document.createElement("a");
    link.className = "tile";
    link.dataset.index = String(index);
    link.dataset.testid = "galleryTile";
    link.href = exploreLink(tile.query);
    link.target = "_top";
    link.title = "Open in Explore";
    link.addEventListener("mouseenter", () => light(index));
    link.addEventListener("mouseleave", () => light(null));
    const label = document.createElement("div");
    label.className = "label";
    const swatch = tile.colour ? `<span class="swatch" style="background:${tile.colour}"></span>` : "";
    label.innerHTML = swatch + tile.lines.map((line) => escapeHtml(line)).join("<br>");
    let video = null;
    if (tile.url) {
      video = document.createElement("video");
      video.muted = true;
      video.playsInline = true;
      video.preload = "auto";
      video.src = tile.url;
      video.setAttribute("aria-label", tile.lines.join(", "));
      video.addEventListener("loadedmetadata", () => {
        duration = Math.max(duration, video.duration || 0);
        seek(video, playhead());
      });
      link.appendChild(video);
    } else {
      link.classList.add("waiting");
      link.appendChild(document.createTextNode("recording…"));
    }
    link.appendChild(label);
    tilesDiv.appendChild(link);
    return video;
  });
  window.__gallery.videos = videos;
}

// Explore is the app's default page: the app's own path without the gallery's last part.
function exploreLink(query) {
  let where;
  try {
    where = window.top.location;
  } catch (error) {
    where = document.referrer ? new URL(document.referrer) : window.location;
  }
  const root = where.pathname.replace(/gallery\/?$/, "");
  return where.origin + root + query;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// Draw `figure` (JSON, with traces of uid "tiles" and "lit") in `div`, linked to the tiles.
async function drawPlot(div, figure) {
  const parsed = JSON.parse(figure);
  const plot = {
    div: div,
    tiles: parsed.data.findIndex((trace) => trace.uid === "tiles"),
    lit: parsed.data.findIndex((trace) => trace.uid === "lit"),
  };
  await Plotly.react(div, parsed.data, parsed.layout, { responsive: true, displaylogo: false });
  if (!div.__hoverHandled) {
    div.on("plotly_hover", (event) => {
      const point = (event.points || [])[0];
      if (point && point.curveNumber === plot.tiles) light(point.pointIndex);
    });
    div.on("plotly_unhover", () => light(null));
    div.__hoverHandled = true;
  }
  plots.push(plot);
}

async function drawPlots(args) {
  await plotlyLoaded;
  plots = [];
  await drawPlot(frontDiv, args.front);
  embeddingDiv.hidden = !args.embedding;
  if (args.embedding) await drawPlot(embeddingDiv, args.embedding);
}

async function render(args) {
  try {
    frame = 1 / (args.fps || 20);
    window.__gallery.frame = frame;
    progressText.textContent = args.progress;
    if (args.drawn !== drawnKey) {
      drawnKey = args.drawn;
      drawTiles(args);
      post("streamlit:setFrameHeight", { height: document.body.scrollHeight + 8 });
      await drawPlots(args);
    }
    problem.textContent = "";
  } catch (error) {
    problem.textContent = "The gallery could not be drawn: " + error;
  }
  post("streamlit:setFrameHeight", { height: document.body.scrollHeight + 8 });
}

window.addEventListener("message", (event) => {
  if (event.data && event.data.type === "streamlit:render") render(event.data.args);
});
post("streamlit:componentReady", {});
requestAnimationFrame(follow);
