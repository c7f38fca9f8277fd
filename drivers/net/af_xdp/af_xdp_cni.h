/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_CNI_H
#define AF_XDP_CNI_H

#include "af_xdp.h"

/*
 * Seconds the device plugin has to take the connection, and to answer each
 * request: a few, as it answers from memory; a plugin that is stuck or not
 * the plugin fails the start with a message, instead of hanging it.
 */
#define AF_XDP_CNI_TIMEOUT_S 5

/*
 * use_cni=1: the XSKMAP of the AF_XDP device plugin for Kubernetes, from
 * its socket at dp_path.  Returns the map's fd, or a negative errno after
 * logging why.
 */
int af_xdp_cni_get_xskmap(const struct af_xdp_port *port);

#endif /* AF_XDP_CNI_H */
