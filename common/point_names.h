/* SPDX-License-Identifier: GPL-2.0 */
/* The capture points' names (bpf/capture_points.h) and a --capture-points list of them. */
#ifndef SYNTWIN_POINT_NAMES_H
#define SYNTWIN_POINT_NAMES_H

#include <stddef.h>

#include <linux/types.h>

#include "capture_points.h"

extern const char *const point_names[PT_MAX];

/* The points of a comma-separated @list ("all": every point) into *@mask (1 << enum
 * capture_point). Returns 0, or -1 with the reason in @err. */
int points_parse(const char *list, unsigned int *mask, char *err, size_t errlen);
/* @mask as a list in the points' order, e.g. "xdp,tc,wire", into @buf. */
void points_text(unsigned int mask, char *buf, size_t len);

#endif
