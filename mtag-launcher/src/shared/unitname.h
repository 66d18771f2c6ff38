/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unitname.h -- systemd unit names (systemd's unit-name.c rules). */
#ifndef MTAG_UNITNAME_H
#define MTAG_UNITNAME_H

#include <stdbool.h>
#include <stddef.h>

/* Is S (N bytes) a unit type: service, socket, timer, ...? */
bool is_unit_type(const char *s, size_t n);

enum unit_name_kind { UNIT_NAME_INVALID, UNIT_NAME_PLAIN, UNIT_NAME_TEMPLATE, UNIT_NAME_INSTANCE };
enum unit_name_kind unit_name_kind(const char *name);
/* foo@bar.service -> foo@.service (malloc'ed); NULL when NAME is no
 * instance. */
char *unit_name_template(const char *name);

#endif
