# xl-front: xl's own commands pass through our xl front.
section "The xl front"
# --- The xl front: xl's own commands pass through, help lists ours.
check "xl front: 'xl help' lists profile" sh -c 'xl help | grep -q "^ profile "'
check "xl front: 'xl help' still lists xl's own commands" sh -c 'xl help | grep -q "^ create "'
check "xl front: 'xl -v list' reaches the real xl" sh -c 'xl -v list | grep -q Domain-0'
check "xl front: 'xl help profile' shows our usage" sh -c 'xl help profile | grep -q "Usage: xl profile"'
