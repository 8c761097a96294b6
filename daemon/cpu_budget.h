/* The daemon's CPU budget: a thread reads the process's CPU time every
 * second; over the last five seconds, usage above the budget scales every
 * sampling rate down (new profiles start at the scaled rate), usage well
 * below lets it recover. After a change the scale holds for settle_s
 * (the longest a profile started before it runs on: the push period)
 * and five seconds more, until the usage is the new scale's. The scale
 * and the usage are reported (/status, pprof comments, the log). */
#ifndef UPD_CPU_BUDGET_H
#define UPD_CPU_BUDGET_H

struct upd_budget;

int upd_budget_start(struct upd_budget **out, double budget_pct,
		     unsigned settle_s);
void upd_budget_stop(struct upd_budget *b);

/* The factor (0.01..1) rates are multiplied by now, and the recent CPU
 * usage in % of one CPU. */
double upd_budget_scale(struct upd_budget *b);
double upd_budget_used_pct(struct upd_budget *b);
double upd_budget_pct(struct upd_budget *b);

/* The rule: the next factor from the current one and the usage seen. */
double upd_budget_next_scale(double scale, double used_pct, double budget_pct);
/* The same at now_s, held until *held_until after a change (which sets
 * it: settle_s and the usage window later). */
double upd_budget_step(double scale, double used_pct, double budget_pct,
		       double now_s, unsigned settle_s, double *held_until);

#endif
