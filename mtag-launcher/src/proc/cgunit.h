/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgunit.h -- the unit a cgroup path belongs to, by systemd's own rules.
 *
 * systemd (src/basic/cgroup-util.c: cg_path_get_unit,
 * cg_path_get_user_unit) decides it so, and so does journald for its
 * trusted _SYSTEMD_UNIT and _SYSTEMD_USER_UNIT fields:
 *
 * - the system unit: skip the leading slices ("NAME.slice" components that
 *   are valid unit names), then the next component is the unit if it is a
 *   valid unit name (plain or instance, after cgroup unescaping: one
 *   leading '_' is dropped) and not a slice.  Everything below it belongs
 *   to that unit, whatever it is called:
 *     /system.slice/nginx.service                 -> nginx.service
 *     /user.slice/user-1000.slice/user@1000.service/app.slice/nginx.service
 *                                                 -> user@1000.service
 *     /machine.slice/machine-web.scope/payload/system.slice/nginx.service
 *                                                 -> machine-web.scope
 * - the user unit: after the leading slices, a "user@UID.service" (the
 *   user's service manager) or "session-ID.scope" component, then the
 *   same rule again:
 *     /user.slice/user-1000.slice/user@1000.service/app.slice/nginx.service
 *                                                 -> nginx.service
 *
 * A unit name a user picks for a unit of their own manager can thus never
 * be taken for a system unit.
 */
#ifndef MTAG_CGUNIT_H
#define MTAG_CGUNIT_H

#include <stdbool.h>
#include <stddef.h>

/* Copy the system unit of CGROUP (a cgroup v2 path, "/..." as the kernel
 * prints it) to BUF and return BUF, or NULL when there is none or it does
 * not fit in LEN bytes. */
char *cgroup_system_unit(const char *cgroup, char *buf, size_t len);

/* Likewise for the unit of a user's service manager or session. */
char *cgroup_user_unit(const char *cgroup, char *buf, size_t len);

/* Whether S (N bytes) is a valid plain or instance unit name, as
 * systemd's unit_name_is_valid(UNIT_NAME_PLAIN|UNIT_NAME_INSTANCE). */
bool unit_name_valid_n(const char *s, size_t n);

#endif
