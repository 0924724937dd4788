// deltacheck results site: sort any table.sortable by clicking a header; filter table.filterable rows
// with the form#filters controls. The filter state lives in the URL's #hash, so a view can be linked.
"use strict";

function cellValue(row, index) {
  const cell = row.cells[index];
  if (!cell) return "";
  return cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
}

function compareValues(a, b) {
  const x = parseFloat(a), y = parseFloat(b);
  const numeric = /^-?[\d.]+/;
  if (numeric.test(a) && numeric.test(b) && !isNaN(x) && !isNaN(y) && x !== y) return x - y;
  return a.localeCompare(b, undefined, { numeric: true });
}

function sortBy(table, header) {
  const index = Array.prototype.indexOf.call(header.parentNode.children, header);
  const ascending = header.getAttribute("aria-sort") !== "ascending";
  table.querySelectorAll("th").forEach(th => th.removeAttribute("aria-sort"));
  header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  rows.sort((r1, r2) => compareValues(cellValue(r1, index), cellValue(r2, index)) * (ascending ? 1 : -1));
  rows.forEach(row => body.appendChild(row));
}

function readFilters(form) {
  const state = {};
  form.querySelectorAll("[data-filter]").forEach(control => {
    if (control.value) state[control.dataset.filter] = control.value;
  });
  return state;
}

// A row is shown when, for each filter set, it has no such attribute or its list holds the value.
function rowMatches(row, state) {
  return Object.entries(state).every(([name, value]) => {
    const listed = row.dataset[name];
    if (listed === undefined) return true;
    if (name === "text") return listed.toLowerCase().includes(value.toLowerCase());
    return listed.split(" ").includes(value);
  });
}

function applyFilters(form) {
  const state = readFilters(form);
  let shown = 0, total = 0;
  document.querySelectorAll("table.filterable tbody tr").forEach(row => {
    const visible = rowMatches(row, state);
    row.classList.toggle("hidden", !visible);
    total += 1;
    shown += visible ? 1 : 0;
  });
  const count = document.getElementById("shown");
  if (count) count.textContent = shown + " of " + total + " rows shown";
  const hash = new URLSearchParams(state).toString();
  try {
    history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
  } catch (error) {
    // some browsers refuse history changes on file:// pages; the filters still apply
  }
}

function restoreFilters(form) {
  const state = new URLSearchParams(location.hash.slice(1));
  form.querySelectorAll("[data-filter]").forEach(control => {
    const value = state.get(control.dataset.filter);
    if (value !== null) control.value = value;
  });
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("table.sortable th").forEach(header => {
    header.addEventListener("click", () => sortBy(header.closest("table"), header));
  });
  const form = document.getElementById("filters");
  if (!form) return;
  restoreFilters(form);
  form.addEventListener("input", () => applyFilters(form));
  form.addEventListener("submit", event => event.preventDefault());
  applyFilters(form);
});
