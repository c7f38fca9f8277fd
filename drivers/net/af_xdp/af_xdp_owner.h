/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_OWNER_H
#define AF_XDP_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "af_xdp_bpf_abi.h"

struct btf;

/*
 * The owner mark of the built-in XDP programs (struct af_xdp_owner): this
 * process's, set in every copy it loads, and read back from a program found
 * attached, with whether the process that loaded it still runs.
 */

/* This process. */
int af_xdp_owner_self(struct af_xdp_owner *owner);

/* The mark of the loaded program prog_fd: 0, or -ENOENT if it carries none. */
int af_xdp_owner_read(int prog_fd, struct af_xdp_owner *owner);

enum af_xdp_owner_state {
	AF_XDP_OWNER_RUNNING,	/* the process that loaded it still runs */
	AF_XDP_OWNER_GONE,	/* it has exited: the program is orphaned */
	AF_XDP_OWNER_UNKNOWN,	/* another PID namespace, or /proc unreadable */
};

enum af_xdp_owner_state af_xdp_owner_state(const struct af_xdp_owner *owner);

/* The owner in words, for the log: "process 42 (started 12.3 s after boot), <state>". */
void af_xdp_owner_describe(const struct af_xdp_owner *owner, enum af_xdp_owner_state state,
			   char *buf, size_t size);

/*
 * A /proc/<pid>/stat line: the process's start time (field 22) and whether
 * it has exited (a zombie, or dead).  0, or -EINVAL if the line is not one.
 */
int af_xdp_owner_parse_stat(const char *stat, uint64_t *start_time, bool *exited);

/*
 * The offset of the global `name`, `size` bytes long, in the data section
 * datasec_id of btf (a DATASEC: .rodata), or -ENOENT.
 */
int af_xdp_btf_var_offset(const struct btf *btf, uint32_t datasec_id, const char *name,
			  size_t size);

#endif /* AF_XDP_OWNER_H */
