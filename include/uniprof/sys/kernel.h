/* What the unwinders need to know about the guest kernel's code, read once
 * from its image before sampling: where its code is (a return address
 * elsewhere is garbage), which functions are outermost (a stack that
 * reaches one is whole), where Xen's hypercall page is (its stubs set up no
 * frame and have no CFI), and whether the code keeps frame pointers (only
 * then does rbp == 0 mark the end of a stack). Evolving: it follows the
 * unwinders and targets, and a change bumps the soname. */
#ifndef UNIPROF_SYS_KERNEL_H
#define UNIPROF_SYS_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../symbols.h"
#include "../target.h"

#ifdef __cplusplus
extern "C" {
#endif

struct up_kernel_map;

enum up_frame_pointers {
	UP_FP_UNKNOWN = 0,     /* no evidence: trust rbp chains */
	UP_FP_KEPT = 1,        /* built with frame pointers */
	UP_FP_OMITTED = 2,     /* rbp is a general register */
};

#define UP_KERNEL_MAX_TEXT 64       /* executable ranges kept */
#define UP_KERNEL_MAX_ENTRIES 256   /* outermost functions kept */

/* An empty map: nothing known, every address accepted. */
int up_kernel_map_new(struct up_kernel_map **out);

/* From an ELF image in memory (gzip-compressed too): its executable
 * segments, the function holding its entry point and Xen's
 * XEN_ELFNOTE_ENTRY, and the hypercall page (XEN_ELFNOTE_HYPERCALL_PAGE, else the hypercall_page
 * symbol). symtab, if given, sizes the entry functions. */
int up_kernel_map_load_mem(struct up_kernel_map **out, const void *buf,
			   size_t len, const char *what,
			   const struct up_symtab *symtab);
void up_kernel_map_free(struct up_kernel_map *k);

/* An outermost function (a thread entry trampoline), by name; UP_ENOENT
 * when symtab has no such function. */
int up_kernel_map_add_entry_symbol(struct up_kernel_map *k,
				   const struct up_symtab *symtab,
				   const char *name);

void up_kernel_map_set_hypercall_page(struct up_kernel_map *k, uint64_t va);

/* Where Xen wrote the hypercall stubs in domain t (live or a core): the
 * image's page if the guest's memory holds the stubs there, else the
 * kernel's code pages searched for them (a PVH/HVM kernel asks Xen for
 * its page by an MSR write, under any name). Before sampling: reads at
 * most 4096 pages. Returns 2 when the stubs are where the map said, 1
 * when they were found elsewhere (the map changed), 0 when none were seen
 * (the map unchanged: not filled yet, say), < 0 when the domain cannot be
 * read; *how says which, for a verbose line. */
int up_kernel_map_probe_hypercall_page(struct up_kernel_map *k,
				       struct up_target *t, const char **how);
/* Its virtual address, or 0 when unknown. */
uint64_t up_kernel_map_hypercall_page(const struct up_kernel_map *k);

void up_kernel_map_set_frame_pointers(struct up_kernel_map *k,
				      enum up_frame_pointers fp);
enum up_frame_pointers up_kernel_map_frame_pointers(const struct up_kernel_map *k);

/* The kernel's functions, to tell whether two code addresses lie in one
 * function (relaxed sampling's check of a stack that moved). Borrowed: s
 * must outlive k's use. Without it, no two addresses are. */
void up_kernel_map_set_functions(struct up_kernel_map *k,
				 const struct up_symtab *s);
size_t up_kernel_map_text_ranges(const struct up_kernel_map *k);
size_t up_kernel_map_entries(const struct up_kernel_map *k);

/* An executable PT_LOAD segment of the image the map was read from, as
 * its program header says: the guest's code at [start, limit) is the
 * file's from file_offset on (p_vaddr, p_vaddr + p_memsz, p_offset). */
struct up_kernel_segment {
	uint64_t start, limit, file_offset;
};

/* The image's executable PT_LOAD segments, in program-header order: 0
 * when the map was not read from an ELF image (up_kernel_map_new). */
size_t up_kernel_map_segments(const struct up_kernel_map *k);
/* Segment i (0 .. up_kernel_map_segments() - 1), or NULL. */
const struct up_kernel_segment *up_kernel_map_segment(const struct up_kernel_map *k,
						      size_t i);
/* The path of the image the segments were read from, or NULL. */
const char *up_kernel_map_image(const struct up_kernel_map *k);

/* Name the hypercall page's 32-byte stubs in a symbol table:
 * "hypercall_page [sched_op]" for the stub at page + 32 * 29. */
int up_symtab_name_hypercalls(struct up_symtab *s, uint64_t page);

#ifdef __cplusplus
}
#endif
#endif
