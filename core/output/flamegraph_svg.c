/* An interactive flame graph as one self-contained SVG: click a frame to
 * zoom into it, "Search" highlights frames matching a regular expression
 * and shows their share, hovering shows name, samples and percentage.
 * No network, no external script: it opens in any browser. A link can
 * open a view: FILE.svg#zoom=NAME zooms into NAME, #search=TEXT searches
 * for frames holding TEXT (^ and $ anchor it; only a search typed in the
 * page is a regular expression, so a link cannot hang the tab); both may
 * be given, joined by '&'. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "output/fold.h"
#include "output/frame_labels.h"
#include "util/strmap.h"
#include "uniprof/diff.h"
#include "uniprof/profile.h"
#include "output/out_buf.h"
#include "util/utf8.h"

#define SVG_WIDTH 1200
#define FRAME_H 16
#define PAD_TOP 50
#define PAD_BOTTOM 40
#define PAD_SIDE 10

struct node {
	const char *name;   /* in the tree's name blocks */
	uint64_t count;
	uint32_t parent;
	uint32_t first_child, next_sibling;   /* 0: none (node 0 is the root) */
};

/* A child's slot in the index: its node (0: empty, the root is never a
 * child) and its key's hash. */
struct child_slot {
	uint32_t node, hash;
};

/* The nodes' names, copied once per node into blocks that never move. */
struct name_block {
	struct name_block *next;
	size_t used, size;
	char text[];
};
#define NAME_BLOCK (64u * 1024)

/* Children are found through a hash of (parent, name), not by scanning
 * siblings: a guest chooses its return addresses, and N distinct frames
 * under one parent must not cost N^2. Keyed by the parent's number and
 * the name's bytes as they are in the stack, not by a "PARENT;NAME"
 * string made and copied for every frame of every stack. */
struct tree {
	struct node *nodes;
	size_t n, cap;
	unsigned max_depth;
	struct child_slot *slots;
	size_t nslots;
	struct name_block *names;    /* the newest first */
};

static uint32_t child_hash(size_t parent, const char *name, size_t len)
{
	uint64_t h = (1469598103934665603ULL ^ parent) * 1099511628211ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ULL;
	return (uint32_t)(h ^ h >> 32);
}

/* The slot of (parent, name[0..len)): its node's, or the empty one it
 * would take. */
static struct child_slot *child_slot(const struct tree *t, size_t parent,
				     const char *name, size_t len, uint32_t h)
{
	size_t i = h & (t->nslots - 1);

	for (;; i = (i + 1) & (t->nslots - 1)) {
		const struct child_slot *c = &t->slots[i];
		const struct node *n = &t->nodes[c->node];

		if (!c->node || (c->hash == h && n->parent == parent &&
				 strncmp(n->name, name, len) == 0 &&
				 n->name[len] == '\0'))
			return &t->slots[i];
	}
}

/* Room for one more child in the index: doubled at 3/4 full. */
static int slots_room(struct tree *t)
{
	struct child_slot *old = t->slots;
	size_t n = t->nslots;

	if (n && (t->n + 1) * 4 < n * 3)
		return 0;
	t->slots = calloc(n ? n * 2 : 1024, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		return -1;
	}
	t->nslots = n ? n * 2 : 1024;
	for (size_t i = 0; i < n; i++)
		if (old[i].node) {
			size_t k = old[i].hash & (t->nslots - 1);

			while (t->slots[k].node)
				k = (k + 1) & (t->nslots - 1);
			t->slots[k] = old[i];
		}
	free(old);
	return 0;
}

/* A copy of name[0..len) that stays where it is, or NULL. */
static const char *name_copy(struct tree *t, const char *name, size_t len)
{
	struct name_block *b = t->names;
	char *to;

	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > NAME_BLOCK ? len + 1 : NAME_BLOCK;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->next = t->names;
		b->used = 0;
		b->size = size;
		t->names = b;
	}
	to = b->text + b->used;
	memcpy(to, name, len);
	to[len] = '\0';
	b->used += len + 1;
	return to;
}

static long child(struct tree *t, size_t parent, const char *name, size_t len)
{
	uint32_t h = child_hash(parent, name, len);
	struct child_slot *c;
	struct node *n;

	if (slots_room(t) < 0)
		return -1;
	c = child_slot(t, parent, name, len, h);
	if (c->node)
		return c->node;
	if (t->n >= UINT32_MAX ||
	    grow_array(&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes), 256) < 0)
		return -1;
	n = &t->nodes[t->n];
	*n = (struct node){ .name = name_copy(t, name, len),
			    .parent = (uint32_t)parent,
			    .next_sibling = t->nodes[parent].first_child };
	if (!n->name)
		return -1;
	t->nodes[parent].first_child = (uint32_t)t->n;
	*c = (struct child_slot){ (uint32_t)t->n, h };
	return (long)t->n++;
}

static int tree_insert(struct tree *t, const char *stack, uint64_t count)
{
	size_t at = 0;
	unsigned depth = 0;

	t->nodes[0].count += count;
	for (const char *p = stack; *p;) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		long c = child(t, at, p, len);

		if (c < 0)
			return -1;
		at = (size_t)c;
		t->nodes[at].count += count;
		if (++depth > t->max_depth)
			t->max_depth = depth;
		p += len + (e != NULL);
	}
	return 0;
}

/* XML 1.0's Char production: anything else makes the file not
 * well-formed, escaped or not. */
static bool xml_char(uint32_t cp)
{
	return cp == 0x9 || cp == 0xA || cp == 0xD ||
	       (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
	       (cp >= 0x10000 && cp <= 0x10FFFF);
}

/* Names are the image's bytes: what is not UTF-8 becomes U+FFFD; what
 * would hide or reorder text (a control, U+202E, U+200B, ...) is shown
 * as its escape, as on the terminal. Printable ASCII that XML leaves
 * alone (most of every name) is copied in runs. */
static void xml_escaped(struct out_buf *o, const char *s)
{
	size_t len = strlen(s);

	for (size_t i = 0; i < len;) {
		char esc[UTF8_ESCAPE_MAX];
		uint32_t cp;
		bool valid;
		size_t n = 0;

		while (i + n < len && s[i + n] >= 0x20 && s[i + n] < 0x7f &&
		       s[i + n] != '&' && s[i + n] != '<' && s[i + n] != '>' &&
		       s[i + n] != '"')
			n++;
		if (n) {
			out_buf_put(o, s + i, n);
			i += n;
			continue;
		}
		n = utf8_decode(s + i, len - i, &cp, &valid);
		if (valid && utf8_shown_escaped(cp))
			out_buf_put(o, esc, utf8_escape(cp, esc));
		else if (cp == '&')
			out_buf_str(o, "&amp;");
		else if (cp == '<')
			out_buf_str(o, "&lt;");
		else if (cp == '>')
			out_buf_str(o, "&gt;");
		else if (cp == '"')
			out_buf_str(o, "&quot;");
		else if (valid && xml_char(cp))
			out_buf_put(o, s + i, n);
		else
			out_buf_str(o, "\xef\xbf\xbd");    /* U+FFFD */
		i += n;
	}
}

/* flamegraph.pl's warm palette, chosen by name so colours are stable. */
static void colour(const char *name, unsigned rgb[3])
{
	uint32_t h = 2166136261u;

	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	if (strncmp(name, "0x", 2) == 0 || name[0] == '[') {
		rgb[0] = rgb[1] = rgb[2] = 180 + h % 40;   /* unknown: grey */
		return;
	}
	rgb[0] = 205 + h % 50;
	rgb[1] = (h >> 8) % 230;
	rgb[2] = (h >> 16) % 55;
}

static int name_cmp(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a;
	const struct node *y = *(const struct node *const *)b;

	return strcmp(x->name, y->name);
}

struct emit {
	struct tree *t;
	FILE *file;
	struct out_buf *out;       /* over file, while frames are written */
	uint64_t total;
	unsigned height;
	double scale;
	/* A differential graph: the BEFORE tree, its total, and the change
	 * (points of share) that gets the deepest colour. */
	const struct tree *before;
	uint64_t before_total;
	double deepest;
};

/* The node of the same path in the other tree, or 0 (only the root is 0,
 * and it is never a child). */
static size_t same_child(const struct tree *t, size_t parent, const char *name)
{
	size_t len = strlen(name);

	if (!t->nslots)
		return 0;
	return child_slot(t, parent, name, len, child_hash(parent, name, len))->node;
}

static double share_delta(const struct emit *e, const struct node *n,
			  size_t bidx, double *before_pct, double *after_pct)
{
	uint64_t b = bidx || n == e->t->nodes ? e->before->nodes[bidx].count : 0;

	*before_pct = e->before_total ? 100.0 * (double)b / (double)e->before_total : 0;
	*after_pct = 100.0 * (double)n->count / (double)e->total;
	return *after_pct - *before_pct;
}

/* Red for a frame that takes a larger share of the samples than before,
 * blue for a smaller one, paler the smaller the change, as differential
 * flame graphs colour. */
static void diff_colour(double delta, double deepest, unsigned rgb[3])
{
	double k = fabs(delta) / deepest;
	unsigned fade = 250 - (unsigned)lround((k > 1 ? 1 : k) * 190);

	rgb[0] = delta > 0 ? 250 : fade;
	rgb[1] = fade;
	rgb[2] = delta > 0 ? fade : 250;
}

static int emit_node(struct emit *e, size_t idx, size_t bidx, uint64_t start,
		     unsigned depth)
{
	struct node *n = &e->t->nodes[idx];
	double x = PAD_SIDE + (double)start * e->scale;
	double w = (double)n->count * e->scale;
	double y = e->height - PAD_BOTTOM - (double)(depth + 1) * FRAME_H;
	struct node **kids;
	size_t nk = 0;
	unsigned rgb[3];
	int rc = 0;

	out_buf_str(e->out, "<g class=\"f\" data-s=\"");
	out_buf_u64(e->out, start);
	out_buf_str(e->out, "\" data-n=\"");
	out_buf_u64(e->out, n->count);
	out_buf_str(e->out, "\" data-d=\"");
	out_buf_u64(e->out, depth);
	out_buf_str(e->out, "\"><title>");
	xml_escaped(e->out, n->name);
	out_buf_str(e->out, " (");
	out_buf_u64(e->out, n->count);
	if (e->before) {
		double bp, ap, d = share_delta(e, n, bidx, &bp, &ap);
		char pts[40];

		diff_colour(d, e->deepest, rgb);
		out_buf_str(e->out, " samples, ");
		out_buf_fixed(e->out, bp, 2);
		out_buf_str(e->out, "% before, ");
		out_buf_fixed(e->out, ap, 2);
		out_buf_str(e->out, "% after, ");
		snprintf(pts, sizeof(pts), "%+.2f", d);   /* signed: printf's */
		out_buf_str(e->out, pts);
		out_buf_str(e->out, " points)</title>");
	} else {
		colour(n->name, rgb);
		out_buf_str(e->out, " samples, ");
		out_buf_fixed(e->out, 100.0 * (double)n->count / (double)e->total, 2);
		out_buf_str(e->out, "%)</title>");
	}
	out_buf_str(e->out, "<rect x=\"");
	out_buf_fixed(e->out, x, 1);
	out_buf_str(e->out, "\" y=\"");
	out_buf_fixed(e->out, y, 0);
	out_buf_str(e->out, "\" width=\"");
	out_buf_fixed(e->out, w, 1);
	out_buf_str(e->out, "\" height=\"");
	out_buf_u64(e->out, FRAME_H - 1);
	out_buf_str(e->out, "\" rx=\"2\" fill=\"rgb(");
	for (unsigned c = 0; c < 3; c++) {
		out_buf_u64(e->out, rgb[c]);
		out_buf_str(e->out, c < 2 ? "," : ")\"/><text x=\"");
	}
	out_buf_fixed(e->out, x + 3, 1);
	out_buf_str(e->out, "\" y=\"");
	out_buf_fixed(e->out, y + 11.5, 0);
	out_buf_str(e->out, "\">");
	xml_escaped(e->out, n->name);
	out_buf_str(e->out, "</text></g>\n");

	for (size_t c = n->first_child; c; c = e->t->nodes[c].next_sibling)
		nk++;
	if (!nk)
		return 0;
	kids = malloc(nk * sizeof(*kids));
	if (!kids)
		return -1;
	nk = 0;
	for (size_t c = n->first_child; c; c = e->t->nodes[c].next_sibling)
		kids[nk++] = &e->t->nodes[c];
	qsort(kids, nk, sizeof(*kids), name_cmp);   /* stable, like flamegraph.pl */
	for (size_t i = 0; i < nk && rc == 0; i++) {
		size_t b = e->before && (bidx || idx == 0) ?
			   same_child(e->before, bidx, kids[i]->name) : 0;

		rc = emit_node(e, (size_t)(kids[i] - e->t->nodes), b, start, depth + 1);
		start += kids[i]->count;
	}
	free(kids);
	return rc;
}

/* The viewer: layout on zoom, search, details line. Kept small and
 * dependency-free; it works on the data-* attributes of each frame. */
static const char script[] =
"var W=" "1200" ",P=10,frames,total,searching=false;\n"
"function $(id){return document.getElementById(id);}\n"
"function init(){frames=Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
" total=+$('frames').getAttribute('data-total');\n"
" frames.forEach(function(g){var t=g.querySelector('text'),r=g.querySelector('rect');\n"
"  g._name=t.textContent;g._fill=r.getAttribute('fill');\n"
"  g.onclick=function(){zoom(g);};\n"
"  g.onmouseover=function(){$('details').textContent=g.querySelector('title').textContent;};\n"
"  g.onmouseout=function(){$('details').textContent=' ';};});\n"
" $('unzoom').onclick=unzoom;\n"
" $('search').onclick=function(){if(searching)unsearch();else{\n"
"  var t=prompt('Search for a function (regular expression)','');if(t)search(t);}};\n"
" layout(0,total,-1);\n"
" /* #zoom=NAME and #search=TEXT: links that open a view. A link's search\n"
"  * is text (^ and $ anchor it), never a regular expression: a link cannot\n"
"  * make the page backtrack for ever. A bad %-escape is said, not thrown. */\n"
" location.hash.slice(1).split('&').forEach(function(kv){\n"
"  var i=kv.indexOf('='),k=kv.slice(0,i),v;\n"
"  try{v=decodeURIComponent(kv.slice(i+1));}catch(e){\n"
"   $('matched').textContent='The link\\'s '+k+' is not valid %-escaped text: ignored';return;}\n"
"  if(k=='search'&&v)search(plain(v));\n"
"  if(k=='zoom'){var best=null;frames.forEach(function(g){if(g._name==v&&\n"
"   (!best||+g.getAttribute('data-n')>+best.getAttribute('data-n')))best=g;});if(best)zoom(best);}});}\n"
"function fit(g,w){var t=g.querySelector('text'),n=g._name,c=Math.floor((w-6)/7);\n"
" t.textContent=c<3?'':(n.length<=c?n:n.slice(0,c-2)+'..');}\n"
"function layout(s0,n0,dz){var k=(W-2*P)/n0;\n"
" frames.forEach(function(g){var s=+g.getAttribute('data-s'),n=+g.getAttribute('data-n'),\n"
"  d=+g.getAttribute('data-d'),r=g.querySelector('rect'),t=g.querySelector('text');\n"
"  if(s+n<=s0||s>=s0+n0||(dz>=0&&d<dz&&!(s<=s0&&s+n>=s0+n0))){g.style.display='none';return;}\n"
"  g.style.display='';var x0=Math.max(s,s0),x1=Math.min(s+n,s0+n0),x=P+(x0-s0)*k,w=(x1-x0)*k;\n"
"  r.setAttribute('x',x.toFixed(1));r.setAttribute('width',w.toFixed(1));\n"
"  t.setAttribute('x',(x+3).toFixed(1));g.style.opacity=(dz>=0&&d<dz)?0.6:1;fit(g,w);});}\n"
"function zoom(g){layout(+g.getAttribute('data-s'),+g.getAttribute('data-n'),\n"
" +g.getAttribute('data-d'));$('unzoom').style.display='';}\n"
"function unzoom(){layout(0,total,-1);$('unzoom').style.display='none';}\n"
"function unsearch(){searching=false;frames.forEach(function(g){\n"
"  g.querySelector('rect').setAttribute('fill',g._fill);});$('matched').textContent=' ';\n"
"  $('search').textContent='Search';}\n"
"function plain(t){var a=t.charAt(0)=='^',z=t.length>1&&t.charAt(t.length-1)=='$',\n"
" s=t.slice(a?1:0,z?t.length-1:t.length);return{test:function(n){\n"
"  return a&&z?n===s:a?n.startsWith(s):z?n.endsWith(s):n.indexOf(s)>=0;}};}\n"
"function search(term){var re=term;if(typeof term=='string')try{re=new RegExp(term);}catch(e){\n"
"  $('matched').textContent='Not a regular expression: '+term;return;}\n"
" var hit=[];frames.forEach(function(g){if(+g.getAttribute('data-d')>0&&re.test(g._name)){\n"
"  g.querySelector('rect').setAttribute('fill','rgb(230,0,230)');\n"
"  hit.push([+g.getAttribute('data-s'),+g.getAttribute('data-n')]);}});\n"
" /* nested matches count once: merge the sample ranges */\n"
" hit.sort(function(a,b){return a[0]-b[0];});var sum=0,end=-1;\n"
" hit.forEach(function(h){var e=h[0]+h[1];if(h[0]>=end){sum+=h[1];end=e;}else if(e>end){sum+=e-end;end=e;}});\n"
" searching=true;$('search').textContent='Reset Search';\n"
" $('matched').textContent='Matched: '+(100*sum/total).toFixed(2)+'%';}\n";

static int build_tree(const struct up_profile *p, const struct up_symtab *symtab,
		      const struct up_output_opts *opts, struct tree *t)
{
	struct strmap *keys;
	uint64_t *counts;
	int rc = profile_fold(p, symtab, opts, &keys, &counts);

	memset(t, 0, sizeof(*t));
	if (rc < 0)
		return rc;
	if (grow_array(&t->nodes, &t->cap, 1, sizeof(*t->nodes), 256) < 0)
		rc = up_fail(UP_ENOMEM, "out of memory");
	else
		t->nodes[t->n++] = (struct node){ .name = "all" };
	for (size_t i = 0; rc == 0 && i < strmap_count(keys); i++)
		if (tree_insert(t, strmap_key(keys, i), counts[i]) < 0)
			rc = up_fail(UP_ENOMEM, "out of memory");
	free(counts);
	strmap_free(keys);
	return rc;
}

static void tree_release(struct tree *t)
{
	while (t->names) {
		struct name_block *b = t->names;

		t->names = b->next;
		free(b);
	}
	free(t->slots);
	free(t->nodes);
}

/* The largest change of share over the frames drawn: the deepest colour,
 * never for less than one point (noise stays pale). */
static double deepest_change(const struct emit *e, size_t idx, size_t bidx)
{
	const struct node *n = &e->t->nodes[idx];
	double bp, ap, d = fabs(share_delta(e, n, bidx, &bp, &ap));

	for (size_t c = n->first_child; c; c = e->t->nodes[c].next_sibling) {
		size_t b = bidx || idx == 0 ?
			   same_child(e->before, bidx, e->t->nodes[c].name) : 0;
		double k = deepest_change(e, c, b);

		if (k > d)
			d = k;
	}
	return d;
}

static int write_svg(struct emit *e, const char *title, const char *legend)
{
	struct tree *t = e->t;
	FILE *out = e->file;
	struct out_buf *ob = malloc(sizeof(*ob));
	int rc = 0;

	if (!ob)
		return up_fail(UP_ENOMEM, "out of memory");
	out_buf_init(ob, out);
	e->out = ob;

	e->total = t->nodes[0].count ? t->nodes[0].count : 1;
	e->height = PAD_TOP + PAD_BOTTOM + (t->max_depth + 1) * FRAME_H;
	e->scale = (double)(SVG_WIDTH - 2 * PAD_SIDE) / (double)e->total;
	if (e->before) {
		double d = deepest_change(e, 0, 0);

		e->deepest = d > 1 ? d : 1;
	}
	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"onload=\"init()\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
		".f:hover rect{stroke:#000;stroke-width:0.5;cursor:pointer}"
		"#title{font-size:17px}#unzoom,#search{cursor:pointer}</style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
		SVG_WIDTH, e->height, SVG_WIDTH, e->height, script, SVG_WIDTH / 2);
	xml_escaped(ob, title ? title : "Flame Graph");
	out_buf_str(ob, "</text>\n");
	out_buf_flush(ob);
	if (legend) {
		fprintf(out, "<text id=\"legend\" x=\"%d\" y=\"42\" text-anchor=\"middle\">",
			SVG_WIDTH / 2);
		xml_escaped(ob, legend);
		out_buf_str(ob, "</text>\n");
		out_buf_flush(ob);
	}
	fprintf(out,
		"<text id=\"unzoom\" x=\"%d\" y=\"24\" style=\"display:none\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%u\" text-anchor=\"end\"> </text>\n"
		"<g id=\"frames\" data-total=\"%" PRIu64 "\">\n",
		PAD_SIDE, SVG_WIDTH - PAD_SIDE, PAD_SIDE, e->height - 14,
		SVG_WIDTH - PAD_SIDE, e->height - 14, t->nodes[0].count);
	if (t->nodes[0].count && emit_node(e, 0, 0, 0, 0) < 0)
		rc = up_fail(UP_ENOMEM, "out of memory");
	out_buf_flush(ob);
	free(ob);
	e->out = NULL;
	fputs("</g>\n</svg>\n", out);
	if (rc == 0 && ferror(out))
		rc = up_fail(UP_EIO, "write error");
	return rc;
}

int up_profile_write_svg(const struct up_profile *p,
			 const struct up_symtab *symtab,
			 const struct up_output_opts *opts, const char *title,
			 FILE *out)
{
	struct tree t;
	struct emit e = { .t = &t, .file = out };
	int rc = profile_check_opts(opts);

	if (rc < 0)
		return rc;
	rc = build_tree(p, symtab, opts, &t);
	if (rc == 0)
		rc = write_svg(&e, title, NULL);
	tree_release(&t);
	return rc;
}

int up_profile_write_diff_svg(const struct up_profile *before,
			      const struct up_symtab *before_symtab,
			      const struct up_profile *after,
			      const struct up_symtab *after_symtab,
			      const struct up_output_opts *opts, const char *title,
			      FILE *out)
{
	struct tree a = { 0 }, b = { 0 };
	struct emit e = { .t = &a, .file = out, .before = &b };
	struct up_output_opts o = profile_default_opts;
	char legend[400];
	int only, rc = profile_check_opts(opts);

	if (rc < 0)
		return rc;
	if (opts)
		o = *opts;
	/* Inlined calls only one side has fold on both, as in the table. */
	only = up_profile_diff_inline(before, before_symtab, after,
				      after_symtab, &o);
	rc = only < 0 ? only : 0;

	o.no_inline = o.no_inline || only > 0;
	if (rc == 0)
		rc = build_tree(after, after_symtab, &o, &a);
	if (rc == 0)
		rc = build_tree(before, before_symtab, &o, &b);
	if (rc == 0) {
		e.before_total = b.nodes[0].count;
		snprintf(legend, sizeof(legend),
			 "widths: AFTER (%" PRIu64 " samples); colour: change of each frame's share of all samples since BEFORE (%" PRIu64 " samples), red grew, blue shrank%s",
			 a.nodes[0].count, b.nodes[0].count,
			 only == UP_DIFF_INLINE_ONLY_BEFORE ? "; inlined calls folded into their callers: only BEFORE has them" :
			 only == UP_DIFF_INLINE_ONLY_AFTER ? "; inlined calls folded into their callers: only AFTER has them" : "");
		rc = write_svg(&e, title, legend);
	}
	tree_release(&a);
	tree_release(&b);
	return rc;
}
