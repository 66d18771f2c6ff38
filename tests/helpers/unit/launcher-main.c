/* launcher-main.c -- runs every unit test of the launcher; built with ASan
 * and UBSan. */
#include <stdlib.h>

#include "unit.h"

int main(void)
{
	static void (*const runs[])(void) = {
		run_policy_tests, run_tunables_tests, run_conffiles_tests,
		run_unitfile_tests, run_mte_tests, run_duration_tests, run_execdef_tests,
		run_upgrade_tests, NULL,
	};

	return unit_run_all("mtag-unit", runs);
}
