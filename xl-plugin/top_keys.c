/* xl profile top's keys: v, i, s and f switch the view, q quits. */
#include "config.h"

#include "top_run.h"
#include "top_term.h"

/* A key: 1 when the view changed. */
static int key(struct top *tp, int c, unsigned nr_vcpus)
{
	switch (c) {
	case 'q': case 'Q': case 3:
		*tp->stop = 1;
		return 0;
	case 'v':
		tp->view.vcpu = tp->view.vcpu + 1 >= (int)nr_vcpus ? -1 : tp->view.vcpu + 1;
		return 1;
	case 'i':
		tp->view.with_idle = !tp->view.with_idle;
		return 1;
	case 's':
		tp->view.by_total = !tp->view.by_total;
		return 1;
	case 'f':
		tp->frozen = !tp->frozen;
		return 1;
	default:
		return 0;
	}
}

void xlp_top_keys(struct top *tp, unsigned nr_vcpus)
{
	int c, changed = 0;

	if (tp->batch)
		return;
	if (xlp_term_resumed) {
		xlp_term_resumed = 0;
		changed = 1;
	}
	while ((c = xlp_term_key()) >= 0)
		changed |= key(tp, c, nr_vcpus);
	if (changed)
		xlp_top_draw(tp);
}

