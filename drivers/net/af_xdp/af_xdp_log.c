/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#include <rte_log.h>

#include "af_xdp.h"

/* The stock driver's name: --log-level=pmd.net.af_xdp:debug works as users expect. */
RTE_LOG_REGISTER(af_xdp_logtype, pmd.net.af_xdp, NOTICE);
