// The Cortex web view: plain JavaScript, no build step. It speaks the debug link's protocol
// (debug/src/protocol.rs) over one WebSocket at /ws, JSON only; camera images come as JPEG from
// /image/CHANNEL.jpg. window.cortexTest is the hook the headless-browser test drives.
"use strict";

const state = {
  socket: null,
  channels: [],
  modules: [],
  pending: new Map(),
  nextId: 1,
  plots: [],          // {channel, field, points: [[t, v]], colour}
  plotSubscriptions: new Set(),
  field: { truth: null, model: null },
  percepts: new Map(),   // camera ("upper") → its newest BallPercept
  processes: [],
  lastSet: null,
  parameters: [],
  outputs: [],              // the catalogue: {process, output, kind}
  shownOutputs: new Map(),  // "process/output" → {process, output, kind, records, received}
};

const colours = ["#d33", "#36c", "#2a2", "#c80", "#909", "#077"];
const $ = (id) => document.getElementById(id);

function say(text) { $("message").textContent = text; }

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws`);
  state.socket = socket;
  socket.onopen = async () => {
    $("connection").textContent = "connected";
    $("connection").className = "good";
    const list = await request({ op: "list" });
    state.channels = list.representations;
    state.modules = list.modules;
    fillChoices();
    startCameras();
    startField();
    for (const channel of state.plotSubscriptions) subscribe(channel, 20);
    loadOutputs();
    for (const shown of state.shownOutputs.values()) subscribeOutput(shown.process, shown.output);
  };
  socket.onclose = () => {
    $("connection").textContent = "disconnected; retrying";
    $("connection").className = "bad";
    for (const { reject } of state.pending.values()) reject(new Error("disconnected"));
    state.pending.clear();
    setTimeout(connect, 1000);
  };
  socket.onmessage = (event) => {
    if (typeof event.data !== "string") return;
    const message = JSON.parse(event.data);
    if (message.type === "value") return onValue(message);
    if (message.type === "output") return onOutput(message);
    if (message.id !== undefined && state.pending.has(message.id)) {
      const { resolve, reject } = state.pending.get(message.id);
      state.pending.delete(message.id);
      if (message.type === "error") reject(new Error(message.error)); else resolve(message);
    } else if (message.type === "error") {
      say(message.error);
    }
  };
}

function request(body) {
  return new Promise((resolve, reject) => {
    if (!state.socket || state.socket.readyState !== WebSocket.OPEN) {
      reject(new Error("not connected"));
      return;
    }
    const id = state.nextId++;
    state.pending.set(id, { resolve, reject });
    state.socket.send(JSON.stringify({ ...body, id }));
  });
}

function subscribe(channel, maxHz) {
  return request({ op: "subscribe", channel, max_hz: maxHz }).catch((error) => say(error.message));
}

// ---- status rows -------------------------------------------------------------------------

function number(value, digits) {
  return value === null || value === undefined ? "-" : Number(value).toFixed(digits);
}

function renderStatus(status) {
  state.processes = status.processes;
  const body = $("processes").tBodies[0];
  for (const process of status.processes) {
    const id = `process-${process.name}`;
    let row = document.getElementById(id);
    if (!row) {
      row = body.insertRow();
      row.id = id;
      for (let i = 0; i < 8; i++) row.insertCell();
      row.cells[1].className = "state";
      row.cells[7].className = "fault";
    }
    row.className = `state-${String(process.state).split(":")[0]}`;
    const standby = process.standby === undefined || process.standby === null
      ? "-" : (typeof process.standby === "object" ? JSON.stringify(process.standby) : String(process.standby));
    const cells = [process.name, process.state, number(process.rate_hz, 1),
      `${number(process.tick_mean_ms, 3)} / ${number(process.tick_max_ms, 3)}`,
      String(process.restarts), standby, number(process.last_failover_ms, 1), process.fault || ""];
    cells.forEach((text, index) => { row.cells[index].textContent = text; });
  }
}

async function pollStatus() {
  try {
    renderStatus((await request({ op: "status" })).status);
  } catch (error) { /* reconnecting */ }
  try {
    renderTimings((await request({ op: "timings" })).processes);
  } catch (error) { /* reconnecting */ }
}

function renderTimings(processes) {
  const rows = [];
  for (const process of processes) {
    for (const module of process.modules) {
      rows.push([process.process, module.module, number(module.last_ms, 3),
        number(module.mean_ms, 3), number(module.max_ms, 3)]);
    }
  }
  const body = $("timings").tBodies[0];
  body.replaceChildren(...rows.map((cells) => {
    const row = document.createElement("tr");
    for (const text of cells) row.insertCell().textContent = text;
    return row;
  }));
}

// ---- choices ---------------------------------------------------------------------------

function fillChoices() {
  const channelSelect = $("plot-channel");
  channelSelect.replaceChildren(...state.channels.filter((c) => c.kind === "encoded").map((c) => {
    const option = document.createElement("option");
    option.value = c.channel;
    option.textContent = `${c.channel} (${c.process})`;
    return option;
  }));
  const moduleSelect = $("parameter-module");
  const names = [...new Set(state.modules.map((m) => m.name))].sort();
  moduleSelect.replaceChildren(...names.map((name) => {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = name;
    return option;
  }));
}

// ---- plots -----------------------------------------------------------------------------

function fieldOf(value, path) {
  let current = value;
  for (const part of path.split(".")) {
    if (current === null || current === undefined) return undefined;
    current = current[/^\d+$/.test(part) ? Number(part) : part];
  }
  return current;
}

function numericPaths(value, prefix, out) {
  if (typeof value === "number") out.push(prefix);
  else if (Array.isArray(value)) value.slice(0, 32).forEach((item, i) => numericPaths(item, prefix ? `${prefix}.${i}` : `${i}`, out));
  else if (value && typeof value === "object") for (const key of Object.keys(value)) numericPaths(value[key], prefix ? `${prefix}.${key}` : key, out);
  return out;
}

const lastValues = new Map();

function onValue(message) {
  lastValues.set(message.channel, message.value);
  const now = performance.now() / 1000;
  for (const plot of state.plots) {
    if (plot.channel !== message.channel) continue;
    const v = fieldOf(message.value, plot.field);
    if (typeof v === "number") {
      plot.points.push([now, v]);
      if (plot.points.length > 400) plot.points.shift();
    }
  }
  if (message.channel === "GroundTruth") state.field.truth = message.value;
  if (message.channel === "BallModel") state.field.model = message.value;
  if (message.channel.endsWith(".BallPercept")) {
    state.percepts.set(message.channel.split(".")[0], message.value);
    drawPercepts();
  }
  if (message.channel === $("plot-channel").value) {
    const list = $("plot-fields");
    if (list.childElementCount === 0) {
      list.replaceChildren(...numericPaths(message.value, "", []).slice(0, 300).map((path) => {
        const option = document.createElement("option");
        option.value = path;
        return option;
      }));
    }
  }
}

function addPlot(channel, field) {
  const plot = { channel, field, points: [], colour: colours[state.plots.length % colours.length] };
  state.plots.push(plot);
  if (!state.plotSubscriptions.has(channel)) {
    state.plotSubscriptions.add(channel);
    subscribe(channel, 20);
  }
  renderLegend();
  return plot;
}

function renderLegend() {
  $("plot-legend").replaceChildren(...state.plots.map((plot) => {
    const span = document.createElement("span");
    span.style.color = plot.colour;
    span.textContent = `${plot.channel}.${plot.field}`;
    return span;
  }));
}

function drawPlots() {
  const canvas = $("plot");
  const context = canvas.getContext("2d");
  context.clearRect(0, 0, canvas.width, canvas.height);
  const now = performance.now() / 1000;
  const span = 10;
  let low = Infinity, high = -Infinity;
  for (const plot of state.plots) for (const [t, v] of plot.points) if (t > now - span) { low = Math.min(low, v); high = Math.max(high, v); }
  if (low === Infinity) return;
  if (high - low < 1e-9) { high += 0.5; low -= 0.5; }
  context.fillStyle = "#666";
  context.fillText(high.toPrecision(4), 4, 12);
  context.fillText(low.toPrecision(4), 4, canvas.height - 4);
  for (const plot of state.plots) {
    context.strokeStyle = plot.colour;
    context.beginPath();
    let first = true;
    for (const [t, v] of plot.points) {
      if (t < now - span) continue;
      const x = ((t - (now - span)) / span) * canvas.width;
      const y = canvas.height - ((v - low) / (high - low)) * (canvas.height - 20) - 10;
      if (first) context.moveTo(x, y); else context.lineTo(x, y);
      first = false;
    }
    context.stroke();
  }
}

// ---- field view ------------------------------------------------------------------------

function startField() {
  const available = state.channels.map((c) => c.channel);
  const sources = ["GroundTruth", "BallModel"].filter((name) => available.includes(name));
  $("field-note").textContent = sources.length
    ? `from ${sources.join(" and ")}: the robot (blue) and the ball (orange) where they are` +
      " (GroundTruth, simulation only), the ball model (red ring: where the robot believes it is)"
    : "no BallModel or GroundTruth channel in this instance";
  for (const source of sources) subscribe(source, 10);
}

function point(position) {
  if (Array.isArray(position)) return { x: position[0], y: position[1] };
  return position && typeof position === "object" ? { x: position.x, y: position.y } : null;
}

function drawField() {
  const canvas = $("field");
  const context = canvas.getContext("2d");
  const scale = canvas.width / 10.4;        // metres → pixels (field 9 m × 6 m plus border)
  const toPixel = (x, y) => [canvas.width / 2 + x * scale, canvas.height / 2 - y * scale];
  context.clearRect(0, 0, canvas.width, canvas.height);
  context.strokeStyle = "#fff";
  context.lineWidth = 2;
  const [left, top] = toPixel(-4.5, 3);
  context.strokeRect(left, top, 9 * scale, 6 * scale);
  context.beginPath();
  const [midX] = toPixel(0, 0);
  context.moveTo(midX, top); context.lineTo(midX, top + 6 * scale); context.stroke();
  context.beginPath(); context.arc(...toPixel(0, 0), 0.75 * scale, 0, 2 * Math.PI); context.stroke();
  // Where the robot is: the simulation's truth, else (a real robot, no localisation yet) the
  // centre spot facing the opponent's goal, with the ball model drawn relative to it.
  const truth = state.field.truth;
  const robot = truth && truth.robot ? truth.robot : { x: 0, y: 0, theta: 0 };
  const [robotX, robotY] = toPixel(robot.x, robot.y);
  context.fillStyle = "#00f";
  context.beginPath(); context.arc(robotX, robotY, 6, 0, 2 * Math.PI); context.fill();
  context.strokeStyle = "#00f";
  context.beginPath(); context.moveTo(robotX, robotY);
  context.lineTo(robotX + 14 * Math.cos(robot.theta), robotY - 14 * Math.sin(robot.theta)); context.stroke();
  const trueBall = truth && truth.ball ? point(truth.ball.position) : null;
  if (trueBall && Number.isFinite(trueBall.x)) {
    const [x, y] = toPixel(trueBall.x, trueBall.y);
    context.fillStyle = "#f80";
    context.beginPath(); context.arc(x, y, 5, 0, 2 * Math.PI); context.fill();
  }
  // The ball model is in the robot's frame: turn and move it onto the field.
  const model = state.field.model;
  const relative = model && model.ever_seen ? point(model.position) : null;
  if (relative && Number.isFinite(relative.x)) {
    const cos = Math.cos(robot.theta), sin = Math.sin(robot.theta);
    const fieldX = robot.x + cos * relative.x - sin * relative.y;
    const fieldY = robot.y + sin * relative.x + cos * relative.y;
    const [x, y] = toPixel(fieldX, fieldY);
    context.strokeStyle = model.seconds_since_seen > 1 ? "#faa" : "#e00";
    context.lineWidth = 2;
    context.beginPath(); context.arc(x, y, 8, 0, 2 * Math.PI); context.stroke();
  }
  drawFieldOutputs(context, toPixel, scale, robot);
}

// ---- cameras ---------------------------------------------------------------------------

function startCameras() {
  const images = state.channels.filter((c) => c.kind === "image");
  const box = $("cameras");
  if (images.length === 0) {
    box.textContent = "no camera images in this instance";
    return;
  }
  box.replaceChildren(...images.map((c) => {
    const camera = c.channel.split(".")[0];
    const frame = document.createElement("div");
    frame.className = "camera";
    const image = document.createElement("img");
    image.alt = c.channel;
    image.title = c.channel;
    image.id = `camera-${camera}`;
    // The balls this camera's perception sees, drawn over its image.
    const overlay = document.createElement("canvas");
    overlay.id = `overlay-${camera}`;
    frame.append(image, overlay);
    const percept = `${camera}.BallPercept`;
    if (state.channels.some((other) => other.channel === percept)) subscribe(percept, 10);
    // One image at a time per camera: the next is asked for when this one has arrived.
    const next = () => setTimeout(() => { image.src = `/image/${c.channel}.jpg?t=${Date.now()}`; }, 200);
    image.onload = () => { drawPercepts(); next(); };
    image.onerror = () => setTimeout(next, 2000);
    next();
    return frame;
  }));
}

function drawPercepts() {
  const cameras = new Set([...state.percepts.keys(), "upper", "lower"]);
  for (const camera of cameras) {
    const percept = state.percepts.get(camera) || { balls: [] };
    const image = document.getElementById(`camera-${camera}`);
    const overlay = document.getElementById(`overlay-${camera}`);
    if (!image || !overlay || !image.naturalWidth) continue;
    overlay.width = image.clientWidth;
    overlay.height = image.clientHeight;
    const scale = image.clientWidth / image.naturalWidth;
    const context = overlay.getContext("2d");
    context.clearRect(0, 0, overlay.width, overlay.height);
    context.lineWidth = 2;
    for (const ball of percept.balls || []) {
      context.strokeStyle = `rgba(255, 60, 0, ${0.4 + 0.6 * (ball.confidence || 0)})`;
      context.beginPath();
      context.arc(ball.x * scale, ball.y * scale, Math.max(2, ball.radius * scale), 0, 2 * Math.PI);
      context.stroke();
    }
    drawImageOutputs(camera, context, scale);
  }
}

// ---- debug outputs (drawn by the modules only while shown) -------------------------------

async function loadOutputs() {
  try {
    const reply = await request({ op: "outputs" });
    state.outputs = reply.outputs || [];
    renderProviders(reply.providers || []);
    $("output-choice").replaceChildren(...state.outputs.map((entry) => {
      const option = document.createElement("option");
      option.value = `${entry.process}/${entry.output}`;
      option.textContent = `${entry.process}: ${entry.output} (${entry.kind.replace("_", " ")})`;
      return option;
    }));
  } catch (error) {
    say(error.message);
  }
}

// A choice per representation with alternative providers (the process table's).
function renderProviders(providers) {
  $("providers").replaceChildren(...providers.map((choice) => {
    const label = document.createElement("label");
    label.textContent = `${choice.process}: ${choice.representation} from `;
    const select = document.createElement("select");
    select.id = `provider-${choice.process}-${choice.representation}`;
    for (const module of choice.modules) {
      const option = document.createElement("option");
      option.value = module;
      option.textContent = module;
      option.selected = module === choice.active;
      select.appendChild(option);
    }
    select.onchange = () => switchProvider(choice.process, choice.representation, select.value);
    label.appendChild(select);
    return label;
  }));
}

async function switchProvider(process, representation, module) {
  try {
    const reply = await request({ op: "switch_provider", process, representation, module });
    say(`${representation} in ${process}: ${reply.active}`);
  } catch (error) {
    say(error.message);
  }
  loadOutputs();
}

function subscribeOutput(process, output) {
  return request({ op: "subscribe_output", process, output, max_hz: 15 });
}

async function showOutput(process, output) {
  const key = `${process}/${output}`;
  const entry = state.outputs.find((e) => e.process === process && e.output === output);
  if (!entry) { say(`no debug output ${key}`); return false; }
  if (state.shownOutputs.has(key)) return true;
  state.shownOutputs.set(key, { process, output, kind: entry.kind, records: [], received: 0 });
  try {
    await subscribeOutput(process, output);
  } catch (error) {
    state.shownOutputs.delete(key);
    say(error.message);
    return false;
  }
  renderShownOutputs();
  return true;
}

function hideOutput(key) {
  const shown = state.shownOutputs.get(key);
  if (!shown) return;
  state.shownOutputs.delete(key);
  state.plots = state.plots.filter((plot) => plot.channel !== `output:${key}`);
  renderLegend();
  renderShownOutputs();
  request({ op: "unsubscribe_output", process: shown.process, output: shown.output }).catch(() => {});
  drawPercepts();
}

function renderShownOutputs() {
  $("outputs-shown").replaceChildren(...[...state.shownOutputs.keys()].map((key) => {
    const span = document.createElement("span");
    span.className = "shown-output";
    span.textContent = `${key} `;
    const button = document.createElement("button");
    button.textContent = "hide";
    button.onclick = () => hideOutput(key);
    span.appendChild(button);
    return span;
  }));
}

function onOutput(message) {
  const key = `${message.process}/${message.output}`;
  const shown = state.shownOutputs.get(key);
  if (!shown) return;
  shown.records = message.records || [];
  shown.received += 1;
  if (message.kind === "plot") {
    const now = performance.now() / 1000;
    for (const record of shown.records) {
      for (const item of record.shapes) {
        if (item.shape !== "value") continue;
        let plot = state.plots.find((p) => p.channel === `output:${key}` && p.field === item.name);
        if (!plot) {
          plot = { channel: `output:${key}`, field: item.name, points: [], colour: colours[state.plots.length % colours.length] };
          state.plots.push(plot);
          renderLegend();
        }
        plot.points.push([now, item.value]);
        if (plot.points.length > 400) plot.points.shift();
      }
    }
  } else if (message.kind === "image_drawing") {
    drawPercepts();
  }
}

function rgba(color) {
  const [r, g, b, a] = color || [255, 255, 255, 255];
  return `rgba(${r}, ${g}, ${b}, ${a / 255})`;
}

// Draws a record's shapes with `toPixel` (its coordinates → the canvas) and `metres` (a
// length → pixels).
function drawShapes(context, shapes, toPixel, length) {
  context.lineWidth = 2;
  for (const item of shapes) {
    context.strokeStyle = rgba(item.color);
    context.fillStyle = rgba(item.color);
    if (item.shape === "circle") {
      context.beginPath();
      context.arc(...toPixel(...item.center), Math.max(2, length(item.radius)), 0, 2 * Math.PI);
      context.stroke();
    } else if (item.shape === "line") {
      context.lineWidth = Math.max(1, length(item.width));
      context.beginPath();
      context.moveTo(...toPixel(...item.from));
      context.lineTo(...toPixel(...item.to));
      context.stroke();
      context.lineWidth = 2;
    } else if (item.shape === "rectangle") {
      const [x0, y0] = toPixel(...item.min);
      const [x1, y1] = toPixel(...item.max);
      context.strokeRect(Math.min(x0, x1), Math.min(y0, y1), Math.abs(x1 - x0), Math.abs(y1 - y0));
    } else if (item.shape === "text") {
      context.fillText(item.text, ...toPixel(...item.at));
    }
  }
}

function drawImageOutputs(camera, context, scale) {
  for (const shown of state.shownOutputs.values()) {
    if (shown.kind !== "image_drawing") continue;
    for (const record of shown.records) {
      const space = record.space && record.space.image;
      if (!space || space.toLowerCase() !== camera) continue;
      drawShapes(context, record.shapes, (x, y) => [x * scale, y * scale], (r) => r * scale);
    }
  }
}

function drawFieldOutputs(context, toPixel, scale, robot) {
  const cos = Math.cos(robot.theta), sin = Math.sin(robot.theta);
  const onField = (x, y) => toPixel(robot.x + cos * x - sin * y, robot.y + sin * x + cos * y);
  for (const shown of state.shownOutputs.values()) {
    if (shown.kind !== "field_drawing") continue;
    for (const record of shown.records) {
      const transform = record.space === "robot" ? onField : toPixel;
      drawShapes(context, record.shapes, transform, (metres) => metres * scale);
    }
  }
}

// ---- parameters ------------------------------------------------------------------------

async function loadParameters(module) {
  const reply = await request({ op: "params", module });
  state.parameters = reply.parameters || [];
  const body = $("parameters").tBodies[0];
  body.replaceChildren(...state.parameters.map((item) => {
    const row = document.createElement("tr");
    row.insertCell().textContent = item.key;
    const input = document.createElement("input");
    input.value = JSON.stringify(item.value);
    input.dataset.key = item.key;
    input.id = `parameter-${module}-${item.key}`;
    row.insertCell().appendChild(input);
    const button = document.createElement("button");
    button.textContent = "set";
    button.onclick = () => setParameter(module, item.key, input.value);
    row.insertCell().appendChild(button);
    const origin = row.insertCell();
    origin.className = "origin";
    origin.textContent = item.source === "file" ? `${item.file}:${item.line}` : `${item.source || ""} ${item.text || ""}`;
    return row;
  }));
}

async function setParameter(module, key, text) {
  try {
    const reply = await request({ op: "set", assignment: `${module}.${key}=${text}` });
    state.lastSet = { ok: true, reply };
    say(`${module}.${key}=${text}: accepted`);
    await loadParameters(module);
  } catch (error) {
    state.lastSet = { ok: false, error: error.message };
    say(error.message);
  }
  return state.lastSet;
}

// ---- start -----------------------------------------------------------------------------

$("plot-add").onclick = () => addPlot($("plot-channel").value, $("plot-field").value);
$("plot-clear").onclick = () => { state.plots = []; renderLegend(); };
$("plot-channel").onchange = () => { $("plot-fields").replaceChildren(); subscribe($("plot-channel").value, 5); };
$("output-show").onclick = () => {
  const [process, ...rest] = $("output-choice").value.split("/");
  showOutput(process, rest.join("/"));
};
$("output-refresh").onclick = () => loadOutputs();
$("parameter-load").onclick = () => loadParameters($("parameter-module").value).catch((e) => say(e.message));

function frame() { drawPlots(); drawField(); requestAnimationFrame(frame); }
requestAnimationFrame(frame);
setInterval(pollStatus, 1000);
connect();

// The test hook: what the page shows, and the page's own controls driven from outside.
window.cortexTest = {
  connected: () => state.socket && state.socket.readyState === WebSocket.OPEN && state.channels.length > 0,
  processRows: () => [...$("processes").tBodies[0].rows].map((row) => row.cells[0].textContent),
  plot: (channel, field) => {
    $("plot-channel").value = channel;
    $("plot-field").value = field;
    $("plot-add").click();
    return true;
  },
  plotPoints: () => state.plots.reduce((sum, plot) => sum + plot.points.length, 0),
  // Through the editor: choose the module, load it, type the value into its row, press set.
  setParameter: async (module, key, text) => {
    $("parameter-module").value = module;
    await loadParameters(module);
    const input = document.getElementById(`parameter-${module}-${key}`);
    if (!input) return { ok: false, error: `no row ${key}` };
    input.value = text;
    state.lastSet = null;
    input.parentElement.nextElementSibling.firstChild.click();
    return true;
  },
  lastSet: () => state.lastSet,
  // Debug outputs: the catalogue, showing one, and how many of its records arrived.
  outputs: () => state.outputs.map((e) => `${e.process}/${e.output}`),
  loadOutputs: () => loadOutputs().then(() => state.outputs.length),
  showOutput: (process, output) => showOutput(process, output),
  // Provider choices as the page shows them ("process/Representation=Module"), and one
  // changed through its select.
  providers: () => [...document.querySelectorAll("#providers select")].map((select) =>
    `${select.id.replace(/^provider-/, "").replace(/-([^-]+)$/, "/$1")}=${select.value}`),
  chooseProvider: (process, representation, module) => {
    const select = document.getElementById(`provider-${process}-${representation}`);
    if (!select) return false;
    select.value = module;
    select.dispatchEvent(new Event("change"));
    return true;
  },
  outputRecords: (process, output) => {
    const shown = state.shownOutputs.get(`${process}/${output}`);
    return shown ? shown.received : 0;
  },
  shownValue: (module, key) => {
    const input = document.getElementById(`parameter-${module}-${key}`);
    return input ? input.value : null;
  },
};
