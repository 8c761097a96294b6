/* Printing one stack per vCPU (see stack_print.h). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "toolkit/json_write.h"
#include "stack_print.h"

/* One vCPU's stack, found by a walk of the profile: copied into the
 * caller's record (the walk's own is gone when it returns; its frames
 * stay, they are the profile's). */
struct found {
	unsigned vcpu;
	struct up_stack_record *out;
	bool hit;
};

static int find(const struct up_stack_record *s, void *arg)
{
	struct found *f = arg;

	if (s->vcpu != f->vcpu || s->depth == 0)
		return 0;
	*f->out = *s;
	f->hit = true;
	return 1;
}

static const struct up_stack_record *stack_of(const struct up_profile *p,
					      unsigned vcpu,
					      struct up_stack_record *rec)
{
	struct found f = { .vcpu = vcpu, .out = rec };

	up_profile_foreach(p, find, &f);
	return f.hit ? rec : NULL;
}

/* Return addresses point after the call: name the call. The symbol, or
 * NULL, and "name+0xoff" (or "?") in name. */
static const struct up_symbol *frame_name(const struct up_symtab *symtab,
					  const uint64_t *frames, unsigned i,
					  char *name, size_t size)
{
	uint64_t look = i && frames[i] ? frames[i] - 1 : frames[i];
	const struct up_symbol *sym = symtab ? up_symtab_lookup(symtab, look) : NULL;

	if (sym)
		snprintf(name, size, "%s+0x%" PRIx64, sym->name, frames[i] - sym->addr);
	else
		snprintf(name, size, "?");
	return sym;
}

/* " at file:line" of a source frame, when known. */
static void print_at(FILE *out, const struct up_src_frame *f)
{
	if (!f->file)
		return;
	fputs(" at ", out);
	up_text_print_escaped(out, f->file);
	fprintf(out, ":%u", f->line);
}

static void json_at(yajl_gen g, const struct up_src_frame *f)
{
	tk_json_key(g, "file");
	tk_json_str(g, f ? f->file : NULL);
	tk_json_key(g, "line");
	if (f && f->file && f->line)
		yajl_gen_integer(g, f->line);
	else
		yajl_gen_null(g);
}

static bool wanted(const struct xlp_stack_print *sp, unsigned v)
{
	return sp->vcpu < 0 || (unsigned)sp->vcpu == v;
}

unsigned xlp_print_stacks_text(const struct xlp_stack_print *sp, FILE *out)
{
	unsigned n = up_profile_nr_vcpus(sp->profile), shown = 0;
	char name[512];

	for (unsigned v = 0; v < n; v++) {
		struct up_stack_record rec;
		const struct up_stack_record *s;

		if (!wanted(sp, v))
			continue;
		s = stack_of(sp->profile, v, &rec);
		if (!s) {
			fprintf(out, "vcpu%u: no stack (%s)\n", v,
				sp->missing_why ? sp->missing_why : "offline");
		} else {
			shown++;
			if (s->activity == UP_VCPU_UNKNOWN)
				fprintf(out, "vcpu%u (%s):\n", v, up_trunc_name(s->trunc));
			else
				fprintf(out, "vcpu%u (%s, %s):\n", v,
					up_vcpu_activity_name(s->activity),
					up_trunc_name(s->trunc));
			for (unsigned i = 0; i < s->depth; i++) {
				struct up_src_frame src[UP_SRC_MAX_FRAMES];
				size_t ns = up_symtab_source(sp->symtab, s->frames[i],
							     i > 0, src, UP_SRC_MAX_FRAMES);

				frame_name(sp->symtab, s->frames, i, name, sizeof(name));
				fprintf(out, "  #%-3u 0x%016" PRIx64 "  ", i, s->frames[i]);
				/* Calls inlined here first, as gdb lists them,
				 * each line with the frame's number and address. */
				for (size_t k = 0; k < ns; k++) {
					if (!src[k].inlined)
						break;
					up_text_print_escaped(out, src[k].function ?
							      src[k].function : "?");
					fputs(" (inlined)", out);
					print_at(out, &src[k]);
					fprintf(out, "\n  #%-3u 0x%016" PRIx64 "  ", i,
						s->frames[i]);
				}
				up_text_print_escaped(out, name);
				if (ns && !src[ns - 1].inlined)
					print_at(out, &src[ns - 1]);
				fputc('\n', out);
			}
		}
		if (sp->regs && sp->regs[v].count) {
			const struct up_named_regs *r = &sp->regs[v];

			fputs("  registers:", out);
			for (unsigned i = 0; i < r->count; i++)
				fprintf(out, "%s%-7s %016" PRIx64, i % 3 ? "  " : "\n    ",
					r->reg[i].name, r->reg[i].value);
			fputc('\n', out);
		}
	}
	return shown;
}

static void json_hex(yajl_gen g, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	tk_json_str(g, buf);
}

unsigned xlp_print_stacks_json(const struct xlp_stack_print *sp,
			       struct yajl_gen_t *g)
{
	unsigned n = up_profile_nr_vcpus(sp->profile), shown = 0;
	char name[512];

	tk_json_key(g, "vcpus");
	yajl_gen_array_open(g);
	for (unsigned v = 0; v < n; v++) {
		struct up_stack_record rec;
		const struct up_stack_record *s;

		if (!wanted(sp, v))
			continue;
		s = stack_of(sp->profile, v, &rec);
		yajl_gen_map_open(g);
		tk_json_key(g, "vcpu");
		yajl_gen_integer(g, v);
		if (!s) {
			tk_json_key(g, "stack");
			yajl_gen_null(g);
			tk_json_key(g, "why");
			tk_json_str(g, sp->missing_why ? sp->missing_why : "offline");
		} else {
			shown++;
			tk_json_key(g, "state");
			tk_json_str(g, s->activity == UP_VCPU_UNKNOWN ? NULL :
					up_vcpu_activity_name(s->activity));
			tk_json_key(g, "complete");
			yajl_gen_bool(g, s->trunc == UP_TRUNC_NONE);
			tk_json_key(g, "truncated_by");
			tk_json_str(g, s->trunc == UP_TRUNC_NONE ? NULL : up_trunc_name(s->trunc));
			tk_json_key(g, "stack");
			yajl_gen_array_open(g);
			for (unsigned i = 0; i < s->depth; i++) {
				const struct up_symbol *sym =
					frame_name(sp->symtab, s->frames, i, name, sizeof(name));
				struct up_src_frame src[UP_SRC_MAX_FRAMES];
				size_t ns;

				yajl_gen_map_open(g);
				tk_json_key(g, "address");
				json_hex(g, s->frames[i]);
				tk_json_key(g, "function");
				tk_json_str(g, sym ? sym->name : NULL);
				tk_json_key(g, "offset");
				if (sym)
					yajl_gen_integer(g, (long long)(s->frames[i] - sym->addr));
				else
					yajl_gen_null(g);
				tk_json_key(g, "name");
				tk_json_str(g, name);
				/* Source keys only with DWARF: without, the
				 * stack reads as it always did. */
				if (!up_symtab_has_source(sp->symtab)) {
					yajl_gen_map_close(g);
					continue;
				}
				ns = up_symtab_source(sp->symtab, s->frames[i], i > 0,
						      src, UP_SRC_MAX_FRAMES);
				json_at(g, ns && !src[ns - 1].inlined ?
					   &src[ns - 1] : NULL);
				/* Calls inlined at this address, innermost first. */
				tk_json_key(g, "inlined");
				yajl_gen_array_open(g);
				for (size_t k = 0; k < ns && src[k].inlined; k++) {
					yajl_gen_map_open(g);
					tk_json_key(g, "function");
					tk_json_str(g, src[k].function);
					json_at(g, &src[k]);
					yajl_gen_map_close(g);
				}
				yajl_gen_array_close(g);
				yajl_gen_map_close(g);
			}
			yajl_gen_array_close(g);
		}
		if (sp->regs && sp->regs[v].count) {
			tk_json_key(g, "registers");
			yajl_gen_map_open(g);
			for (unsigned i = 0; i < sp->regs[v].count; i++) {
				tk_json_key(g, sp->regs[v].reg[i].name);
				json_hex(g, sp->regs[v].reg[i].value);
			}
			yajl_gen_map_close(g);
		}
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	return shown;
}
