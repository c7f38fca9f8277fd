/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_ORPHAN_H
#define AF_XDP_ORPHAN_H

#include "af_xdp.h"

/*
 * A process killed before it could detach (SIGKILL, OOM) leaves its
 * built-in program on the interface, attached alone or under libxdp's
 * dispatcher.  Remove those whose owner no longer exists, and say so;
 * programs of running processes, and everyone else's, stay.
 */
void af_xdp_orphan_remove(const struct af_xdp_port *port);

/* Say why an attach failed with err, with what is in the way if anything. */
void af_xdp_orphan_explain_attach(const struct af_xdp_port *port, int err);

#endif /* AF_XDP_ORPHAN_H */
