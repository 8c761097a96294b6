/* Interning raw stacks: an open-addressing hash table over an arena of
 * frames. Adding a stack that was seen before allocates nothing. The
 * distinct stacks are bounded (a guest chooses its return addresses, and
 * the table is locked in memory): past the limits a new stack is counted
 * in its vCPU's [dropped] stack. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "profile/profile_impl.h"
#include "uniprof/profile.h"
#include "private.h"

struct stack_entry {
	uint64_t hash;
	uint64_t count;
	size_t frames;      /* offset into the arena */
	unsigned depth;
	unsigned vcpu;
	enum up_trunc trunc;
	enum up_vcpu_activity activity;
};

struct up_profile {
	unsigned nr_vcpus;
	uint64_t *vcpu_samples, *vcpu_blocked, *vcpu_busy, *vcpu_waiting;
	uint64_t samples, truncated;
	uint64_t trunc_by[UP_TRUNC_COUNT];
	struct stack_entry *entries;
	size_t nr_entries, cap_entries;
	size_t *slots;          /* entry index + 1; 0 = empty */
	size_t nslots;
	uint64_t *arena;
	size_t arena_len, arena_cap;
	size_t max_stacks, max_bytes, bytes;   /* bytes: stack_cost() summed */
	uint64_t *dropped_by;   /* [vcpu * NR_ACTIVITIES + activity] */
	uint64_t dropped;
	uint64_t *vcpu_unseen;
	/* When each sample was taken, in the order added (see
	 * up_profile_add_at): bounded too; past the bound the samples count
	 * and their times are lost, counted in untimed. */
	struct time_rec *times;
	size_t nr_times, cap_times, max_times;
	uint64_t untimed, timed, time_end;
	uint64_t credited;      /* periods missed, counted as a sample */
};

/* 16 bytes: id is an entry's index or TIME_DROPPED | its [dropped]
 * record (vCPU * NR_ACTIVITIES + activity), and TIME_CREDITED when the
 * count is of periods the sampler missed (up_profile_add_credited). */
struct time_rec {
	uint64_t t_ns;
	uint32_t id;
	uint32_t count;
};

#define TIME_DROPPED 0x80000000u
#define TIME_CREDITED 0x40000000u
#define TIME_INDEX (TIME_CREDITED - 1)

#define NR_ACTIVITIES (UP_VCPU_WAITING + 1)

/* What one distinct stack takes: its entry, its frames and its share of a
 * hash table kept at most half full. */
static size_t stack_cost(unsigned depth)
{
	return sizeof(struct stack_entry) + depth * sizeof(uint64_t) +
	       2 * sizeof(size_t);
}

int up_profile_new(struct up_profile **out, unsigned nr_vcpus)
{
	struct up_profile *p;

	if (nr_vcpus == 0)
		return up_fail(UP_EINVAL, "a profile needs at least one vCPU");
	p = calloc(1, sizeof(*p));
	if (!p)
		return up_fail(UP_ENOMEM, "out of memory");
	p->nr_vcpus = nr_vcpus;
	p->nslots = 1024;
	p->max_stacks = UP_PROFILE_DEFAULT_MAX_STACKS;
	p->max_bytes = UP_PROFILE_DEFAULT_MAX_BYTES;
	p->max_times = UP_PROFILE_DEFAULT_MAX_TIMES;
	p->dropped_by = calloc((size_t)nr_vcpus * NR_ACTIVITIES,
			       sizeof(*p->dropped_by));
	p->vcpu_samples = calloc(nr_vcpus, sizeof(*p->vcpu_samples));
	p->vcpu_blocked = calloc(nr_vcpus, sizeof(*p->vcpu_blocked));
	p->vcpu_busy = calloc(nr_vcpus, sizeof(*p->vcpu_busy));
	p->vcpu_waiting = calloc(nr_vcpus, sizeof(*p->vcpu_waiting));
	p->vcpu_unseen = calloc(nr_vcpus, sizeof(*p->vcpu_unseen));
	p->slots = calloc(p->nslots, sizeof(*p->slots));
	if (!p->vcpu_samples || !p->vcpu_blocked || !p->vcpu_busy || !p->vcpu_waiting || !p->slots ||
	    !p->dropped_by || !p->vcpu_unseen) {
		up_profile_free(p);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	*out = p;
	return 0;
}

void up_profile_free(struct up_profile *p)
{
	if (!p)
		return;
	free(p->vcpu_samples);
	free(p->vcpu_blocked);
	free(p->vcpu_busy);
	free(p->vcpu_waiting);
	free(p->vcpu_unseen);
	free(p->dropped_by);
	free(p->entries);
	free(p->slots);
	free(p->arena);
	free(p->times);
	free(p);
}

static uint64_t hash_stack(unsigned vcpu, const uint64_t *f, unsigned depth,
			   enum up_trunc trunc, enum up_vcpu_activity act)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ vcpu ^ ((uint64_t)trunc << 32) ^
		     ((uint64_t)depth << 40) ^ ((uint64_t)act << 56);

	for (unsigned i = 0; i < depth; i++) {
		h ^= f[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	return h;
}

static int grow_slots(struct up_profile *p)
{
	size_t n = p->nslots * 2;
	size_t *s = calloc(n, sizeof(*s));

	if (!s)
		return up_fail(UP_ENOMEM, "out of memory");
	for (size_t i = 0; i < p->nr_entries; i++) {
		size_t j = p->entries[i].hash & (n - 1);

		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = i + 1;
	}
	free(p->slots);
	p->slots = s;
	p->nslots = n;
	return 0;
}

static int append(struct up_profile *p, unsigned vcpu, const uint64_t *frames,
		  unsigned depth, enum up_trunc trunc,
		  enum up_vcpu_activity act, uint64_t hash, size_t slot)
{
	struct stack_entry *e;

	if (grow_array(&p->arena, &p->arena_cap, p->arena_len + depth,
		    sizeof(*p->arena), 4096) < 0 ||
	    grow_array(&p->entries, &p->cap_entries, p->nr_entries + 1,
		    sizeof(*p->entries), 256) < 0)
		return UP_ENOMEM;
	memcpy(p->arena + p->arena_len, frames, depth * sizeof(*frames));
	e = &p->entries[p->nr_entries];
	e->hash = hash;
	e->count = 1;
	e->frames = p->arena_len;
	e->depth = depth;
	e->vcpu = vcpu;
	e->trunc = trunc;
	e->activity = act;
	p->arena_len += depth;
	p->slots[slot] = ++p->nr_entries;
	return 0;
}

int up_profile_add(struct up_profile *p, unsigned vcpu,
		   const uint64_t *frames, unsigned depth, enum up_trunc trunc)
{
	return up_profile_add_activity(p, vcpu, frames, depth, trunc,
				       UP_VCPU_UNKNOWN, 1);
}

/* Keep when n samples of stack id were taken; merged with the last
 * record when it is the same stack at the same time. */
static int add_time(struct up_profile *p, uint64_t t_ns, uint64_t id,
		    uint64_t n, bool credited)
{
	struct time_rec *last = p->nr_times ? &p->times[p->nr_times - 1] : NULL;
	uint32_t rid;

	if (t_ns == UP_PROFILE_NO_TIME)
		return 0;
	if (id & UP_STACK_ID_DROPPED)
		rid = TIME_DROPPED | (uint32_t)(id & ~UP_STACK_ID_DROPPED);
	else
		rid = (uint32_t)id;
	if (credited)
		rid |= TIME_CREDITED;
	if (last && last->t_ns == t_ns && last->id == rid &&
	    last->count <= UINT32_MAX - n) {
		last->count += (uint32_t)n;
		p->timed += n;
		return 0;
	}
	if (p->nr_times >= p->max_times || (id > TIME_INDEX && !(id & UP_STACK_ID_DROPPED)) ||
	    grow_array(&p->times, &p->cap_times, p->nr_times + 1,
		       sizeof(*p->times), 1024) < 0) {
		p->untimed += n;
		return 0;
	}
	p->times[p->nr_times++] = (struct time_rec){ t_ns, rid, (uint32_t)n };
	if (t_ns > p->time_end)
		p->time_end = t_ns;
	p->timed += n;
	return 0;
}

int up_profile_add_activity(struct up_profile *p, unsigned vcpu,
			    const uint64_t *frames, unsigned depth,
			    enum up_trunc trunc, enum up_vcpu_activity act,
			    uint64_t n)
{
	return up_profile_add_at(p, vcpu, frames, depth, trunc, act, n,
				 UP_PROFILE_NO_TIME);
}

static uint64_t dropped_id(unsigned vcpu, enum up_vcpu_activity act)
{
	return UP_STACK_ID_DROPPED | ((uint64_t)vcpu * NR_ACTIVITIES + act);
}

static int add_stack(struct up_profile *p, unsigned vcpu,
		     const uint64_t *frames, unsigned depth,
		     enum up_trunc trunc, enum up_vcpu_activity act,
		     uint64_t n, uint64_t t_ns, bool credited)
{
	uint64_t h, id;
	size_t j;
	int rc;

	if (vcpu >= p->nr_vcpus || depth == 0 || trunc >= UP_TRUNC_COUNT ||
	    act > UP_VCPU_WAITING || n == 0 || n > UINT32_MAX)
		return up_fail(UP_EINVAL, "bad stack (vCPU %u, depth %u)", vcpu,
			       depth);
	if ((p->nr_entries + 1) * 2 > p->nslots && (rc = grow_slots(p)) < 0)
		return rc;
	h = hash_stack(vcpu, frames, depth, trunc, act);
	for (j = h & (p->nslots - 1); p->slots[j]; j = (j + 1) & (p->nslots - 1)) {
		struct stack_entry *e = &p->entries[p->slots[j] - 1];

		if (e->hash == h && e->depth == depth && e->vcpu == vcpu &&
		    e->trunc == trunc && e->activity == act &&
		    memcmp(p->arena + e->frames, frames,
			   depth * sizeof(*frames)) == 0) {
			e->count += n;
			id = (uint64_t)(e - p->entries);
			goto counted;
		}
	}
	if (p->nr_entries >= p->max_stacks || stack_cost(depth) > p->max_bytes ||
	    p->bytes > p->max_bytes - stack_cost(depth)) {
		p->dropped_by[vcpu * NR_ACTIVITIES + act] += n;
		p->dropped += n;
		id = dropped_id(vcpu, act);
		goto counted;
	}
	rc = append(p, vcpu, frames, depth, trunc, act, h, j);
	if (rc < 0)
		return rc;
	p->entries[p->nr_entries - 1].count = n;
	p->bytes += stack_cost(depth);
	id = p->nr_entries - 1;
counted:
	add_time(p, t_ns, id, n, credited);
	p->credited += credited ? n : 0;
	p->samples += n;
	p->vcpu_samples[vcpu] += n;
	p->vcpu_blocked[vcpu] += act == UP_VCPU_BLOCKED ? n : 0;
	p->vcpu_busy[vcpu] += act == UP_VCPU_BUSY ? n : 0;
	p->vcpu_waiting[vcpu] += act == UP_VCPU_WAITING ? n : 0;
	if (trunc != UP_TRUNC_NONE)
		p->truncated += n;
	p->trunc_by[trunc] += n;
	return 0;
}

int up_profile_add_at(struct up_profile *p, unsigned vcpu,
		      const uint64_t *frames, unsigned depth,
		      enum up_trunc trunc, enum up_vcpu_activity act,
		      uint64_t n, uint64_t t_ns)
{
	return add_stack(p, vcpu, frames, depth, trunc, act, n, t_ns, false);
}

int up_profile_add_credited(struct up_profile *p, unsigned vcpu,
			    const uint64_t *frames, unsigned depth,
			    enum up_trunc trunc, enum up_vcpu_activity act,
			    uint64_t n, uint64_t t_ns)
{
	return add_stack(p, vcpu, frames, depth, trunc, act, n, t_ns, true);
}

int profile_add_dropped(struct up_profile *p, unsigned vcpu,
			enum up_vcpu_activity act, uint64_t n, uint64_t t_ns,
			bool credited)
{
	if (vcpu >= p->nr_vcpus || act > UP_VCPU_WAITING || n == 0 ||
	    n > UINT32_MAX)
		return up_fail(UP_EINVAL, "bad dropped count (vCPU %u)", vcpu);
	add_time(p, t_ns, dropped_id(vcpu, act), n, credited);
	p->credited += credited ? n : 0;
	p->dropped_by[vcpu * NR_ACTIVITIES + act] += n;
	p->dropped += n;
	p->samples += n;
	p->vcpu_samples[vcpu] += n;
	p->vcpu_blocked[vcpu] += act == UP_VCPU_BLOCKED ? n : 0;
	p->vcpu_busy[vcpu] += act == UP_VCPU_BUSY ? n : 0;
	p->vcpu_waiting[vcpu] += act == UP_VCPU_WAITING ? n : 0;
	p->trunc_by[UP_TRUNC_NONE] += n;
	return 0;
}

int up_profile_add_unseen(struct up_profile *p, unsigned vcpu, uint64_t n)
{
	if (vcpu >= p->nr_vcpus || n > UINT32_MAX ||
	    p->vcpu_unseen[vcpu] > UINT64_MAX - n)
		return up_fail(UP_EINVAL, "bad unseen count (vCPU %u)", vcpu);
	p->vcpu_unseen[vcpu] += n;
	return 0;
}

uint64_t up_profile_vcpu_unseen(const struct up_profile *p, unsigned vcpu)
{
	return vcpu < p->nr_vcpus ? p->vcpu_unseen[vcpu] : 0;
}

int profile_set_nr_vcpus(struct up_profile *p, unsigned n)
{
	if (n == 0 || n > p->nr_vcpus)
		return up_fail(UP_EINVAL, "bad vCPU count %u", n);
	for (unsigned v = n; v < p->nr_vcpus; v++)
		if (p->vcpu_samples[v] || p->vcpu_unseen[v])
			return up_fail(UP_EINVAL, "vCPU %u has samples", v);
	p->nr_vcpus = n;
	return 0;
}

void up_profile_set_limits(struct up_profile *p, size_t max_stacks,
			   size_t max_bytes)
{
	if (max_stacks)
		p->max_stacks = max_stacks;
	if (max_bytes)
		p->max_bytes = max_bytes;
}

size_t up_profile_max_stacks(const struct up_profile *p)
{
	return p->max_stacks;
}

size_t up_profile_max_bytes(const struct up_profile *p)
{
	return p->max_bytes;
}

uint64_t up_profile_dropped(const struct up_profile *p)
{
	return p->dropped;
}

uint64_t up_profile_vcpu_blocked(const struct up_profile *p, unsigned vcpu)
{
	return vcpu < p->nr_vcpus ? p->vcpu_blocked[vcpu] : 0;
}

uint64_t up_profile_vcpu_busy(const struct up_profile *p, unsigned vcpu)
{
	return vcpu < p->nr_vcpus ? p->vcpu_busy[vcpu] : 0;
}

uint64_t up_profile_vcpu_waiting(const struct up_profile *p, unsigned vcpu)
{
	return vcpu < p->nr_vcpus ? p->vcpu_waiting[vcpu] : 0;
}

uint64_t up_profile_truncated_by(const struct up_profile *p, enum up_trunc why)
{
	return why < UP_TRUNC_COUNT ? p->trunc_by[why] : 0;
}

uint64_t up_profile_samples(const struct up_profile *p)
{
	return p->samples;
}

uint64_t up_profile_credited(const struct up_profile *p)
{
	return p->credited;
}

uint64_t up_profile_vcpu_samples(const struct up_profile *p, unsigned vcpu)
{
	return vcpu < p->nr_vcpus ? p->vcpu_samples[vcpu] : 0;
}

uint64_t up_profile_truncated(const struct up_profile *p)
{
	return p->truncated;
}

size_t up_profile_unique_stacks(const struct up_profile *p)
{
	return p->nr_entries;
}

unsigned up_profile_nr_vcpus(const struct up_profile *p)
{
	return p->nr_vcpus;
}

int up_profile_foreach(const struct up_profile *p, up_profile_visit_fn fn,
		       void *arg)
{
	for (size_t i = 0; i < p->nr_entries; i++) {
		const struct stack_entry *e = &p->entries[i];
		struct up_stack_record r = {
			.id = i,
			.vcpu = e->vcpu, .frames = p->arena + e->frames,
			.depth = e->depth, .trunc = e->trunc,
			.activity = e->activity, .count = e->count,
		};
		int rc = fn(&r, arg);

		if (rc)
			return rc;
	}
	for (size_t i = 0; i < (size_t)p->nr_vcpus * NR_ACTIVITIES; i++) {
		static const uint64_t no_frame;
		struct up_stack_record r = {
			.id = UP_STACK_ID_DROPPED | i,
			.vcpu = (unsigned)(i / NR_ACTIVITIES), .frames = &no_frame,
			.depth = 0, .trunc = UP_TRUNC_NONE,
			.activity = (enum up_vcpu_activity)(i % NR_ACTIVITIES),
			.count = p->dropped_by[i],
		};
		int rc = r.count ? fn(&r, arg) : 0;

		if (rc)
			return rc;
	}
	for (unsigned v = 0; v < p->nr_vcpus; v++) {
		static const uint64_t no_frame;
		struct up_stack_record r = {
			.id = UP_STACK_ID_UNSEEN | v,
			.vcpu = v, .frames = &no_frame, .depth = 0,
			.trunc = UP_TRUNC_NONE, .activity = UP_VCPU_BUSY,
			.count = p->vcpu_unseen[v], .unseen = true,
		};
		int rc = r.count ? fn(&r, arg) : 0;

		if (rc)
			return rc;
	}
	return 0;
}

void up_profile_set_max_times(struct up_profile *p, size_t max_times)
{
	p->max_times = max_times;
}

bool up_profile_has_times(const struct up_profile *p)
{
	return p->nr_times > 0;
}

uint64_t up_profile_untimed(const struct up_profile *p)
{
	return p->untimed;
}

uint64_t up_profile_timed(const struct up_profile *p)
{
	return p->timed;
}

uint64_t up_profile_time_end(const struct up_profile *p)
{
	return p->time_end;
}

static struct up_time_record time_record(const struct time_rec *t)
{
	uint32_t k = t->id & TIME_INDEX;

	return (struct up_time_record){
		.t_ns = t->t_ns, .count = t->count,
		.id = t->id & TIME_DROPPED ? UP_STACK_ID_DROPPED | k : k,
		.credited = (t->id & TIME_CREDITED) != 0,
	};
}

int up_profile_foreach_time(const struct up_profile *p,
			    up_profile_time_fn fn, void *arg)
{
	for (size_t i = 0; i < p->nr_times; i++) {
		struct up_time_record r = time_record(&p->times[i]);
		int rc = fn(r.t_ns, r.id, r.count, arg);

		if (rc)
			return rc;
	}
	return 0;
}

int up_profile_foreach_time_record(const struct up_profile *p,
				   up_profile_time_record_fn fn, void *arg)
{
	for (size_t i = 0; i < p->nr_times; i++) {
		struct up_time_record r = time_record(&p->times[i]);
		int rc = fn(&r, arg);

		if (rc)
			return rc;
	}
	return 0;
}

int up_profile_slice(const struct up_profile *p, uint64_t from_ns,
		     uint64_t to_ns, struct up_profile **out)
{
	struct up_profile *q;
	int rc = up_profile_new(&q, p->nr_vcpus);

	if (rc < 0)
		return rc;
	up_profile_set_limits(q, p->max_stacks, p->max_bytes);
	q->max_times = p->max_times;
	for (size_t i = 0; rc == 0 && i < p->nr_times; i++) {
		struct up_time_record r = time_record(&p->times[i]);
		uint64_t k = r.id & ~UP_STACK_ID_DROPPED;

		if (r.t_ns < from_ns || r.t_ns >= to_ns)
			continue;
		if (r.id & UP_STACK_ID_DROPPED) {
			rc = profile_add_dropped(q, (unsigned)(k / NR_ACTIVITIES),
						 (enum up_vcpu_activity)(k % NR_ACTIVITIES),
						 r.count, r.t_ns, r.credited);
		} else if (k < p->nr_entries) {
			const struct stack_entry *e = &p->entries[k];

			rc = add_stack(q, e->vcpu, p->arena + e->frames,
				       e->depth, e->trunc, e->activity,
				       r.count, r.t_ns, r.credited);
		}
	}
	if (rc < 0) {
		up_profile_free(q);
		return rc;
	}
	*out = q;
	return 0;
}

void up_profile_forget_times(struct up_profile *p, uint64_t before_ns)
{
	size_t keep = 0;

	for (size_t i = 0; i < p->nr_times; i++)
		if (p->times[i].t_ns >= before_ns)
			p->times[keep++] = p->times[i];
	p->nr_times = keep;
}
