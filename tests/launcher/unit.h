/* unit.h -- the launcher's unit tests (harness: tests/lib/unit.h). */
#ifndef MTAG_UNIT_H
#define MTAG_UNIT_H

#include "../lib/unit.h"

void run_policy_tests(void);
void run_tunables_tests(void);
void run_conffiles_tests(void);
void run_unitfile_tests(void);
void run_mte_tests(void);
void run_duration_tests(void);
void run_execdef_tests(void);
void run_upgrade_tests(void);

#endif
