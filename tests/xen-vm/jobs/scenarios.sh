#!/bin/sh
# The real-Xen scenarios, run in dom0: one file a scenario,
# scenarios/NN-NAME.sh, run in NN's order, sourced into this shell after
# lib.sh and scenarios/helpers.sh. Each result is a TAP line on the
# console; the host numbers them and turns them into `make check` results.
# UNIPROF_SCENARIOS=NAME,NAME...: only those (default: all), each of which
# also runs alone; the host passes it on the kernel command line
# (uniprof.scenarios=, see run-vm.sh). How the suite is organised, and why
# each tolerance is what it is: docs/TESTING.md.
# Also on the host, before anything boots:
#   scenarios.sh --list         every scenario's name, in the order they run
#   scenarios.sh --select LIST  the names LIST selects, or one line naming
#                               the known ones and exit 1
SCENARIO_DIR=$(cd "$(dirname "$0")" && pwd)/scenarios

# scenario_names: every scenario's name, in order
scenario_names() {
	for _f in "$SCENARIO_DIR"/[0-9]*.sh; do
		_n=${_f##*/}
		_n=${_n#*-}
		echo "${_n%.sh}"
	done
}

# select_scenarios LIST: the names LIST (commas, colons or spaces between;
# empty or "all": every one) selects, in order.
select_scenarios() {
	_all=$(scenario_names | tr '\n' ' ')
	_want=$(echo "$1" | tr ',:' '  ')
	[ -n "${_want## }" ] || _want=all
	for _w in $_want; do
		case " all $_all" in
		*" $_w "*) ;;
		*) echo "unknown scenario '$_w' in UNIPROF_SCENARIOS; known: all ${_all% }" >&2; return 1 ;;
		esac
	done
	for _n in $_all; do
		case " $_want " in *" all "* | *" $_n "*) echo "$_n" ;; esac
	done
}

case "${1:-}" in
--list) scenario_names; exit 0 ;;
--select) select_scenarios "${2:-}"; exit ;;
esac

. /uniprof/jobs/lib.sh
. "$SCENARIO_DIR/helpers.sh"

if ! SELECTED=$(select_scenarios "${UNIPROF_SCENARIOS:-}" 2>&1); then
	tap "Bail out! $SELECTED"
	exit 1
fi
SELECTED=$(echo "$SELECTED" | tr "\n" " ")
[ -z "${UNIPROF_SCENARIOS:-}" ] || tap "# scenarios: $SELECTED"

# selected NAME: is that scenario in this run?
selected() {
	case " $SELECTED " in *" $1 "*) return 0 ;; esac
	return 1
}

# What a scenario takes from another (docs/TESTING.md, "State between
# scenarios"); each also runs alone:
# - stored re-renders fp's PV profile ($FP_PV_STEM); without fp it makes
#   one the same way.
# - core compares its stacks with crash's --once prints
#   ($OUT/tg-crash-TY.once); without crash it makes them the same way.
# - dump-core finds its kernel through a configuration in /etc/xen that
#   names it (core's, /etc/xen/tg-core-pvh.cfg); it writes that file if no
#   one has.
# - core's guests crash long before it runs, so that xl has written their
#   cores by then: the runner starts them, the PVH one before the first
#   scenario, the PV one before bad-input (or before whatever runs first
#   after that point).
if selected core; then
	section "Post-mortem, started early"
	core_guest tg-core-pvh tg-pvh-fp || tap "# the PVH guest for the core-file checks did not start"
fi
# The scenarios from bad-input on, in order: the PV core guest starts
# before the first of them that runs.
RUN_LATE=" $(scenario_names | sed -n '/^bad-input$/,$p' | tr '\n' ' ')"
RUN_CORE_PV=no
for RUN_NAME in $SELECTED; do
	case "$RUN_LATE" in
	*" $RUN_NAME "*)
		if selected core && [ $RUN_CORE_PV = no ]; then
			RUN_CORE_PV=yes
			core_guest tg-core-pv tg-pv-nofp || tap "# the PV guest for the core-file checks did not start"
		fi ;;
	esac
	. "$SCENARIO_DIR"/[0-9][0-9]-"$RUN_NAME".sh
done

[ $TAP_FAILED -eq 0 ] || diagnose
tap_plan_end
