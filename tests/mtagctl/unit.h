/* unit.h -- the ctl library's unit tests (harness: tests/lib/unit.h). */
#ifndef MTAG_CTL_UNIT_H
#define MTAG_CTL_UNIT_H

#include "../lib/unit.h"

void run_faultline_tests(void);
void run_cause_tests(void);
void run_corefile_tests(void);
void run_procmaps_tests(void);
void run_smaps_tests(void);
void run_procmte_tests(void);
void run_cgroupfs_tests(void);
void run_json_tests(void);
void run_prom_tests(void);
void run_trust_tests(void);
void run_coreload_tests(void);
void run_escape_tests(void);
void run_jemallocid_tests(void);
void run_verdict_tests(void);
void run_columns_tests(void);
void run_pager_tests(void);
void run_faultcount_tests(void);
void run_promexport_tests(void);
void run_bugid_tests(void);
void run_packages_tests(void);

/* tests/mtagctl/data/NAME ($MTAG_CTL_TEST_DATA/NAME), whole, malloc'ed
 * and NUL-terminated; exits on failure.  *LEN may be NULL. */
char *read_data(const char *name, size_t *len);
/* The path of data file NAME (static buffer). */
const char *data_path(const char *name);

/* mte_fault_parse() of the recorded line data/kmsg/NAME.txt (its newline
 * included), given as a copy of exactly its length, with no NUL after it,
 * so that ASan catches a read past the end. */
struct mte_fault;
int parse_kmsg(const char *name, struct mte_fault *f);

#endif
