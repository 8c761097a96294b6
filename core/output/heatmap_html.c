/* A sub-second heat map of when the samples were taken (FlameScope's
 * view): one column a second, one row each 20 ms of it, the colour the
 * samples there. Select a range (click its first cell, then its last) and
 * the page shows the flame graph and top list of just that range. One
 * self-contained HTML file: its data a JSON document in the page, its
 * script drawing from it; names reach the page only as text nodes, so no
 * name can be markup, and are keys only of objects without a prototype
 * (a frame named __proto__ is a frame). At most MAX_SECONDS columns; the
 * whole run's range ends just past its last sample (cells after it grey),
 * not at the end of that second's column. A link can open a view: FILE.html#range=FROM-TO
 * (seconds since the start) and #search=TEXT (cells coloured by the
 * samples with a frame holding TEXT; ^ and $ anchor it, and only what is
 * typed in the page is a regular expression), joined by '&'. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "output/fold.h"
#include "output/frame_labels.h"
#include "util/strmap.h"
#include "uniprof/profile.h"
#include "private.h"
#include "util/utf8.h"

#define ROWS_PER_SECOND 50
/* An hour of columns (180,000 cells): past it the page says so, and
 * report --from/--to shows any range. */
#define MAX_SECONDS 3600

/* A JSON string that is inert inside the page's script element too: '<',
 * '>' and '&' as escapes, so no name can close the element. Names are
 * valid UTF-8 (the writers' names are); what would hide or reorder the
 * text shown (a control, U+202E, U+2028, U+200B, ...) becomes its escape
 * as text, as on the terminal (the page shows "\u202e"). */
static void json_string(FILE *out, const char *s)
{
	size_t len = strlen(s);

	fputc('"', out);
	for (size_t i = 0; i < len;) {
		char esc[UTF8_ESCAPE_MAX];
		uint32_t cp;
		bool valid;
		size_t n = utf8_decode(s + i, len - i, &cp, &valid);

		if (!valid)
			fputs("\\ufffd", out);
		else if (utf8_shown_escaped(cp)) {
			utf8_escape(cp, esc);
			/* the escape's backslash, escaped for JSON */
			fprintf(out, "\\\\%s", esc + 1);
		} else if (cp == '"' || cp == '\\')
			fprintf(out, "\\%c", (char)cp);
		else if (cp == '<' || cp == '>' || cp == '&')
			fprintf(out, "\\u%04x", (unsigned)cp);
		else
			fwrite(s + i, 1, n, out);
		i += n;
	}
	fputc('"', out);
}

struct emit {
	FILE *out;
	const struct profile_fold_id *ids;
	size_t nids;
	/* The last sample written, merged with the next when alike. */
	uint64_t t_ms, key, count;
	bool pending;
	size_t written;
};

/* The fold's ids rise (visit order): bsearch finds a time's stack. */
static int fold_id_cmp(const void *key, const void *elem)
{
	uint64_t id = *(const uint64_t *)key;
	uint64_t fid = ((const struct profile_fold_id *)elem)->id;

	return id < fid ? -1 : id > fid;
}

static void flush(struct emit *e)
{
	if (!e->pending)
		return;
	fprintf(e->out, "%s[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]",
		e->written++ ? "," : "", e->t_ms, e->key, e->count);
	if (e->written % 8 == 0)
		fputc('\n', e->out);
	e->pending = false;
}

static int visit_time(uint64_t t_ns, uint64_t id, uint64_t count, void *arg)
{
	struct emit *e = arg;
	const struct profile_fold_id *f = e->nids ?
		bsearch(&id, e->ids, e->nids, sizeof(*e->ids), fold_id_cmp) : NULL;
	uint64_t t_ms = t_ns / 1000000;

	if (!f || t_ms >= MAX_SECONDS * 1000ULL)   /* left out of the view */
		return 0;
	if (e->pending && e->t_ms == t_ms && e->key == f->key) {
		e->count += count;
		return 0;
	}
	flush(e);
	*e = (struct emit){ e->out, e->ids, e->nids, t_ms, f->key, count, true,
			    e->written };
	return 0;
}

/* The page's script: draws the heat map, and a range's flame graph and
 * top list, from the data element. */
static const char script[] =
"(function () {\n"
"'use strict';\n"
"var D = JSON.parse(document.getElementById('data').textContent);\n"
"var NS = 'http://www.w3.org/2000/svg', ROWS = D.rows, STEP = 1000 / ROWS;\n"
"var cols = Math.max(1, Math.ceil((D.end_ms + 1) / 1000));\n"
"var cells = new Float64Array(cols * ROWS), hits = new Float64Array(cols * ROWS), i, c, r;\n"
"var re = null, matches = [];\n"
"function count() {\n"
"  cells.fill(0); hits.fill(0);\n"
"  for (var k = 0; k < D.stacks.length; k++)\n"
"    matches[k] = !!re && D.stacks[k].split(';').some(function (n) { return re.test(n); });\n"
"  for (var j = 0; j < D.samples.length; j++) {\n"
"    var s = D.samples[j], at = Math.floor(s[0] / 1000) * ROWS + Math.floor((s[0] % 1000) / STEP);\n"
"    cells[at] += s[2];\n"
"    if (matches[s[1]]) hits[at] += s[2];\n"
"  }\n"
"}\n"
"function el(name, attrs, parent) {\n"
"  var e = document.createElementNS(NS, name);\n"
"  for (var k in attrs) e.setAttribute(k, attrs[k]);\n"
"  if (parent) parent.appendChild(e);\n"
"  return e;\n"
"}\n"
"function text(id, t) { document.getElementById(id).textContent = t; }\n"
"text('title', D.title);\n"
"text('legend', D.legend + (D.cut ? ' ' + D.cut : ''));\n"
"var CW = Math.max(6, Math.min(40, Math.floor(1100 / cols))), CH = 8;\n"
"var LEFT = 50, TOP = 20;\n"
"var heat = document.getElementById('heat');\n"
"heat.setAttribute('width', LEFT + cols * CW + 10);\n"
"heat.setAttribute('height', TOP + ROWS * CH + 30);\n"
"for (i = 0; i <= 1000; i += 200) {\n"
"  var y = el('text', { x: LEFT - 4, y: TOP + i / STEP * CH + 4, 'text-anchor': 'end' }, heat);\n"
"  y.textContent = i + ' ms';\n"
"}\n"
"var every = Math.max(1, Math.ceil(40 / CW));\n"
"for (c = 0; c < cols; c += every) {\n"
"  var x = el('text', { x: LEFT + c * CW + CW / 2, y: TOP + ROWS * CH + 14, 'text-anchor': 'middle' }, heat);\n"
"  x.textContent = c + ' s';\n"
"}\n"
"var rects = [], tips = [];\n"
"for (c = 0; c < cols; c++) for (r = 0; r < ROWS; r++) {\n"
"  var rect = el('rect', { x: LEFT + c * CW, y: TOP + r * CH, width: CW - 1, height: CH - 1,\n"
"    'class': 'cell', 'data-cell': c * ROWS + r }, heat);\n"
"  tips.push(el('title', {}, rect));\n"
"  rects.push(rect);\n"
"}\n"
"/* Colour by the samples, or with a search by those whose stack has a\n"
" * matching frame; each second's figures as data for scripts. */\n"
"function paint() {\n"
"  count();\n"
"  var v = re ? hits : cells, max = 0, j;\n"
"  for (j = 0; j < v.length; j++) if (v[j] > max) max = v[j];\n"
"  for (j = 0; j < rects.length; j++) {\n"
"    var f = max ? v[j] / max : 0, after = cellStart(j) > D.end_ms;\n"
"    rects[j].setAttribute('fill', after ? '#e4e4e4' :\n"
"      'rgb(255,' + Math.round(255 - 200 * f) + ',' + Math.round(255 - 255 * f) + ')');\n"
"    tips[j].textContent = Math.floor(j / ROWS) + ' s + ' + Math.round((j % ROWS) * STEP) + ' ms: ' +\n"
"      (after ? 'after the last sample' : cells[j] + ' samples' + (re ? ', ' + hits[j] + ' matching' : ''));\n"
"  }\n"
"  var secs = document.getElementById('seconds');\n"
"  while (secs.firstChild) secs.removeChild(secs.firstChild);\n"
"  for (c = 0; c < cols; c++) {\n"
"    var n = 0, m = 0, li = document.createElement('li');\n"
"    for (r = 0; r < ROWS; r++) { n += cells[c * ROWS + r]; m += hits[c * ROWS + r]; }\n"
"    li.setAttribute('data-second', c);\n"
"    li.setAttribute('data-samples', n);\n"
"    li.setAttribute('data-match', m);\n"
"    li.textContent = c + ' s: ' + n + ' samples' + (re ? ', ' + m + ' matching' : '');\n"
"    secs.appendChild(li);\n"
"  }\n"
"}\n"
"/* A search from a link is text, never a regular expression: a link\n"
" * cannot make the page backtrack for ever ((x+x+)+y). A leading ^ and a\n"
" * trailing $ anchor it. What is typed in the box is a regular expression. */\n"
"function plain(t) {\n"
"  var a = t.charAt(0) === '^', z = t.length > 1 && t.charAt(t.length - 1) === '$';\n"
"  var s = t.slice(a ? 1 : 0, z ? t.length - 1 : t.length);\n"
"  return { test: function (n) {\n"
"    return a && z ? n === s : a ? n.startsWith(s) : z ? n.endsWith(s) : n.indexOf(s) >= 0;\n"
"  } };\n"
"}\n"
"function search(expr, fromLink) {\n"
"  var note = '';\n"
"  re = null;\n"
"  if (expr && fromLink) {\n"
"    re = plain(expr);\n"
"    note = 'Searched for the link\\'s text, not a regular expression: ' + expr +\n"
"      ' (^ and $ anchor it; type in the box for a regular expression)';\n"
"  } else if (expr) {\n"
"    try { re = new RegExp(expr); } catch (e) { note = 'Not a regular expression: ' + expr; }\n"
"  }\n"
"  text('note', note);\n"
"  document.getElementById('search').value = expr || '';\n"
"  paint();\n"
"}\n"
"var first = -1;\n"
"function show(t0, t1, whole) {\n"
"  for (var j = 0; j < rects.length; j++) {\n"
"    var a = Math.floor(j / ROWS) * 1000 + (j % ROWS) * STEP;\n"
"    rects[j].setAttribute('class', !whole && a >= t0 && a < t1 ? 'cell in' : 'cell');\n"
"  }\n"
"  var counts = Object.create(null), total = 0;\n"
"  for (var k = 0; k < D.samples.length; k++) {\n"
"    var s = D.samples[k];\n"
"    if (s[0] < t0 || s[0] >= t1) continue;\n"
"    counts[s[1]] = (counts[s[1]] || 0) + s[2];\n"
"    total += s[2];\n"
"  }\n"
"  text('range', 'From ' + (t0 / 1000).toFixed(3) + ' s to ' + (t1 / 1000).toFixed(3) +\n"
"    ' s: ' + total + ' samples');\n"
"  document.getElementById('range').setAttribute('data-samples', total);\n"
"  flame(counts, total);\n"
"  top(counts, total);\n"
"}\n"
"function flame(counts, total) {\n"
"  var root = { name: 'all', value: total, kids: Object.create(null) }, depth = 0;\n"
"  for (var key in counts) {\n"
"    var names = D.stacks[key].split(';'), n = root;\n"
"    if (names.length > depth) depth = names.length;\n"
"    for (var j = 0; j < names.length; j++) {\n"
"      var kid = n.kids[names[j]];\n"
"      if (!kid) kid = n.kids[names[j]] = { name: names[j], value: 0, kids: Object.create(null) };\n"
"      kid.value += counts[key];\n"
"      n = kid;\n"
"    }\n"
"  }\n"
"  var svg = document.getElementById('flame'), W = 1200, H = 16;\n"
"  while (svg.firstChild) svg.removeChild(svg.firstChild);\n"
"  svg.setAttribute('width', W);\n"
"  svg.setAttribute('height', (depth + 1) * H + 4);\n"
"  if (!total) return;\n"
"  (function draw(n, x, level) {\n"
"    var w = n.value / total * W;\n"
"    if (w < 0.5) return;\n"
"    var y = depth * H - level * H;\n"
"    var g = el('g', { 'class': 'frame' }, svg);\n"
"    var hue = 0;\n"
"    for (var j = 0; j < n.name.length; j++) hue = (hue * 31 + n.name.charCodeAt(j)) % 360;\n"
"    el('rect', { x: x, y: y, width: Math.max(0, w - 0.5), height: H - 1,\n"
"      fill: 'hsl(' + (hue % 50 + 5) + ',80%,' + (55 + hue % 15) + '%)' }, g);\n"
"    var pct = (100 * n.value / total).toFixed(2);\n"
"    el('title', {}, g).textContent = n.name + ' (' + n.value + ' samples, ' + pct + '%)';\n"
"    g.setAttribute('data-name', n.name);\n"
"    g.setAttribute('data-samples', n.value);\n"
"    if (w > 30) {\n"
"      var t = el('text', { x: x + 3, y: y + H - 4 }, g), chars = Math.floor((w - 6) / 7);\n"
"      t.textContent = n.name.length <= chars ? n.name : n.name.slice(0, Math.max(0, chars - 2)) + '..';\n"
"    }\n"
"    var kx = x, names = Object.keys(n.kids).sort();\n"
"    for (var k = 0; k < names.length; k++) {\n"
"      draw(n.kids[names[k]], kx, level + 1);\n"
"      kx += n.kids[names[k]].value / total * W;\n"
"    }\n"
"  })(root, 0, 0);\n"
"}\n"
"function top(counts, total) {\n"
"  var self = Object.create(null), all = Object.create(null);\n"
"  for (var key in counts) {\n"
"    var names = D.stacks[key].split(';'), seen = Object.create(null);\n"
"    self[names[names.length - 1]] = (self[names[names.length - 1]] || 0) + counts[key];\n"
"    for (var j = 0; j < names.length; j++) {\n"
"      if (seen[names[j]]) continue;\n"
"      seen[names[j]] = 1;\n"
"      all[names[j]] = (all[names[j]] || 0) + counts[key];\n"
"    }\n"
"  }\n"
"  var body = document.getElementById('top');\n"
"  while (body.firstChild) body.removeChild(body.firstChild);\n"
"  var order = Object.keys(all).sort(function (a, b) {\n"
"    return (self[b] || 0) - (self[a] || 0) || all[b] - all[a] || (a < b ? -1 : 1);\n"
"  });\n"
"  for (var k = 0; k < order.length && k < 30; k++) {\n"
"    var tr = document.createElement('tr'), name = order[k];\n"
"    [(100 * (self[name] || 0) / total).toFixed(2) + '%', (100 * all[name] / total).toFixed(2) + '%',\n"
"     String(self[name] || 0), name].forEach(function (v) {\n"
"      var td = document.createElement('td');\n"
"      td.textContent = v;\n"
"      tr.appendChild(td);\n"
"    });\n"
"    tr.setAttribute('data-name', name);\n"
"    tr.setAttribute('data-self', self[name] || 0);\n"
"    body.appendChild(tr);\n"
"  }\n"
"}\n"
"function cellStart(j) { return Math.floor(j / ROWS) * 1000 + (j % ROWS) * STEP; }\n"
"heat.addEventListener('click', function (ev) {\n"
"  var a = ev.target.getAttribute && ev.target.getAttribute('data-cell');\n"
"  if (a === null || a === undefined) return;\n"
"  var j = +a;\n"
"  if (first < 0) { first = j; show(cellStart(j), cellStart(j) + STEP); return; }\n"
"  var lo = Math.min(first, j), hi = Math.max(first, j);\n"
"  first = -1;\n"
"  history.replaceState(null, '', '#range=' + (cellStart(lo) / 1000) + '-' + ((cellStart(hi) + STEP) / 1000));\n"
"  show(cellStart(lo), cellStart(hi) + STEP);\n"
"});\n"
"function fromHash() {\n"
"  var q = /search=([^&]*)/.exec(location.hash), term = '', bad = false;\n"
"  if (q) try { term = decodeURIComponent(q[1]); } catch (e) { bad = true; }\n"
"  search(term, true);\n"
"  if (bad) text('note', 'The link\\'s search is not valid %-escaped text: ignored');\n"
"  var m = /range=([0-9.]+)-([0-9.]+)/.exec(location.hash);\n"
"  if (m) show(Math.round(parseFloat(m[1]) * 1000), Math.round(parseFloat(m[2]) * 1000));\n"
"  else show(0, D.end_ms + 1, true);\n"
"}\n"
"document.getElementById('search').addEventListener('change', function (ev) {\n"
"  search(ev.target.value, false);\n"
"});\n"
"window.addEventListener('hashchange', fromHash);\n"
"fromHash();\n"
"})();\n";

static const char head[] =
"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
"script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n"
"<title>uniprof heat map</title>\n<style>\n"
"body { font: 12px Verdana, sans-serif; margin: 10px; }\n"
"h1 { font-size: 17px; } .cell { cursor: pointer; } .cell.in { stroke: #06c; stroke-width: 1.5; }\n"
"#flame text { font-size: 12px; pointer-events: none; } #heat text { font-size: 10px; }\n"
"td { padding: 0 8px; text-align: right; } td:last-child { text-align: left; }\n"
"</style>\n</head>\n<body>\n<h1 id=\"title\"></h1>\n<p id=\"legend\"></p>\n"
"<p>Columns are seconds, rows 20 ms of each second; the darker, the more samples. "
"Click a cell, then another: the flame graph and top list below are that range's. "
"Search colours the cells by the samples with a frame matching a regular expression.</p>\n"
"<p><label>Search <input id=\"search\" type=\"text\" size=\"40\"></label></p>\n"
"<p id=\"note\"></p>\n"
"<svg id=\"heat\" xmlns=\"http://www.w3.org/2000/svg\"></svg>\n"
"<details><summary>Each second</summary><ul id=\"seconds\"></ul></details>\n"
"<p id=\"range\"></p>\n<svg id=\"flame\" xmlns=\"http://www.w3.org/2000/svg\"></svg>\n"
"<table><thead><tr><th>self</th><th>total</th><th>samples</th><th>function</th></tr></thead>"
"<tbody id=\"top\"></tbody></table>\n";

int up_profile_write_heatmap(const struct up_profile *p,
			     const struct up_symtab *symtab,
			     const struct up_output_opts *opts,
			     const char *title, const char *legend, FILE *out)
{
	struct strmap *keys = NULL;
	uint64_t *counts = NULL;
	struct profile_fold_id *ids = NULL;
	size_t nids = 0;
	struct emit e = { .out = out };
	uint64_t end_ms;
	int rc = profile_check_opts(opts);

	if (rc < 0)
		return rc;
	if (!up_profile_has_times(p))
		return up_fail(UP_EINVAL, "the profile has no sample times (folded stacks, or a pprof from an older uniprof): no heat map or time range; profile again to have them");
	rc = profile_fold_ids(p, symtab, opts, &keys, &counts, &ids, &nids);
	if (rc < 0)
		return rc;
	fputs(head, out);
	fputs("<script type=\"application/json\" id=\"data\">\n{\"title\": ", out);
	json_string(out, title ? title : "Heat map");
	fputs(",\n\"legend\": ", out);
	json_string(out, legend ? legend : "");
	end_ms = up_profile_time_end(p) / 1000000;
	if (end_ms >= MAX_SECONDS * 1000ULL) {
		end_ms = MAX_SECONDS * 1000ULL - 1;
		fputs(",\n\"cut\": \"The run is longer than the page shows: its first hour. xl profile report --from/--to renders any range.\"", out);
	}
	fprintf(out, ",\n\"rows\": %d,\n\"end_ms\": %" PRIu64 ",\n\"stacks\": [\n",
		ROWS_PER_SECOND, end_ms);
	for (size_t i = 0; i < strmap_count(keys); i++) {
		if (i)
			fputs(",\n", out);
		json_string(out, strmap_key(keys, i));
	}
	fputs("],\n\"samples\": [\n", out);
	e.ids = ids;
	e.nids = nids;
	rc = up_profile_foreach_time(p, visit_time, &e);
	flush(&e);
	fputs("]}\n</script>\n<script>\n", out);
	fputs(script, out);
	fputs("</script>\n</body>\n</html>\n", out);
	strmap_free(keys);
	free(counts);
	free(ids);
	if (rc == 0 && ferror(out))
		rc = up_fail(UP_EIO, "write error");
	return rc;
}
