/* The daemon's CPU budget: a thread reads the process's CPU time every
 * second; over the last five seconds, usage above the budget scales every
 * sampling rate down (new profiles start at the scaled rate), usage well
 * below lets it recover. The scale and the usage are reported (/status,
 * pprof comments, the log). */
#ifndef UPD_CPU_BUDGET_H
#define UPD_CPU_BUDGET_H

struct upd_budget;

int upd_budget_start(struct upd_budget **out, double budget_pct);
void upd_budget_stop(struct upd_budget *b);

/* The factor (0.01..1) rates are multiplied by now, and the recent CPU
 * usage in % of one CPU. */
double upd_budget_scale(struct upd_budget *b);
double upd_budget_used_pct(struct upd_budget *b);
double upd_budget_pct(struct upd_budget *b);

/* The rule: the next factor from the current one and the usage seen. */
double upd_budget_next_scale(double scale, double used_pct, double budget_pct);

#endif
