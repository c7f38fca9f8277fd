/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The owner mark of the built-in programs (af_xdp_owner.h): reading
 * /proc/<pid>/stat, whether an owner still runs (this process, one that
 * exited, a pid reused by a later process, a zombie, another PID
 * namespace), and placing a global in a .rodata section by BTF.  Real
 * processes (fork), no BPF.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <bpf/btf.h>

#include "af_xdp_owner.h"
#include "unit_test.h"

static void
test_parse_stat(void)
{
	/* A comm with spaces and parentheses: only the last ')' ends it. */
	const char *line = "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 "
			   "20 0 1 0 987654 1000 10 18446744073709551615";
	uint64_t start = 0;
	bool exited = true;

	CHECK_EQ(af_xdp_owner_parse_stat(line, &start, &exited), 0);
	CHECK_EQ(start, 987654);
	CHECK(!exited, "state S is running");
	CHECK_EQ(af_xdp_owner_parse_stat("7 (z) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0",
					 &start, &exited), 0);
	CHECK_EQ(start, 55);
	CHECK(exited, "state Z has exited");
	CHECK_EQ(af_xdp_owner_parse_stat("no parenthesis S 1", &start, &exited), -EINVAL);
	CHECK_EQ(af_xdp_owner_parse_stat("1 (short) S 1 2 3", &start, &exited), -EINVAL);
}

static void
test_self(void)
{
	struct af_xdp_owner me, other;

	CHECK_EQ(af_xdp_owner_self(&me), 0);
	CHECK_EQ(me.magic, AF_XDP_OWNER_MAGIC);
	CHECK_EQ(me.pid, getpid());
	CHECK(me.pid_ns != 0, "a PID namespace inode");
	CHECK_EQ(af_xdp_owner_state(&me), AF_XDP_OWNER_RUNNING);

	other = me;
	other.start_time++;
	CHECK_EQ(af_xdp_owner_state(&other), AF_XDP_OWNER_GONE);	/* the pid, reused */
	other = me;
	other.pid_ns++;
	CHECK_EQ(af_xdp_owner_state(&other), AF_XDP_OWNER_UNKNOWN);
}

/* A process's start time, from its /proc/<pid>/stat. */
static uint64_t
start_time_of(pid_t pid)
{
	char path[64], line[1024] = "";
	uint64_t start = 0;
	bool exited;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	CHECK(f != NULL && fgets(line, sizeof(line), f) != NULL, "read %s", path);
	if (f != NULL)
		fclose(f);
	CHECK_EQ(af_xdp_owner_parse_stat(line, &start, &exited), 0);
	return start;
}

/* A child's mark: it is running, a zombie, then reaped. */
static void
test_child(void)
{
	struct af_xdp_owner child;
	int pipefd[2], status, tries;
	char go;
	pid_t pid;

	CHECK_EQ(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		close(pipefd[1]);
		/* Until the parent closes its end. */
		while (read(pipefd[0], &go, 1) > 0)
			;
		_exit(0);
	}
	close(pipefd[0]);
	CHECK(pid > 0, "fork");
	CHECK_EQ(af_xdp_owner_self(&child), 0);
	child.pid = (uint32_t)pid;
	child.start_time = start_time_of(pid);
	CHECK_EQ(af_xdp_owner_state(&child), AF_XDP_OWNER_RUNNING);
	close(pipefd[1]);
	/* A zombie until reaped: it has exited, its descriptors are closed. */
	for (tries = 0; tries < 5000 && af_xdp_owner_state(&child) == AF_XDP_OWNER_RUNNING;
	     tries++)
		usleep(1000);
	CHECK_EQ(af_xdp_owner_state(&child), AF_XDP_OWNER_GONE);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK_EQ(af_xdp_owner_state(&child), AF_XDP_OWNER_GONE);
}

static void
test_describe(void)
{
	struct af_xdp_owner o = { .magic = AF_XDP_OWNER_MAGIC, .pid = 77,
				  .start_time = (uint64_t)sysconf(_SC_CLK_TCK) * 12 };
	char buf[192];

	af_xdp_owner_describe(&o, AF_XDP_OWNER_GONE, buf, sizeof(buf));
	CHECK(strcmp(buf, "process 77 (started 12.0 s after boot), which no longer exists") == 0,
	      "%s", buf);
	af_xdp_owner_describe(&o, AF_XDP_OWNER_RUNNING, buf, sizeof(buf));
	CHECK(strstr(buf, "still running") != NULL, "%s", buf);
}

/* A .rodata of two globals, as clang lays out the built-in object's. */
static void
test_var_offset(void)
{
	struct btf *btf = btf__new_empty();
	int u32, owner, action, mark, sec;

	CHECK(btf != NULL, "btf__new_empty");
	u32 = btf__add_int(btf, "unsigned int", 4, 0);
	owner = btf__add_struct(btf, "af_xdp_owner", sizeof(struct af_xdp_owner));
	action = btf__add_var(btf, "xdp_redirect_xsk_action", BTF_VAR_GLOBAL_ALLOCATED, u32);
	mark = btf__add_var(btf, AF_XDP_OWNER_VAR, BTF_VAR_GLOBAL_ALLOCATED, owner);
	sec = btf__add_datasec(btf, ".rodata", 8 + sizeof(struct af_xdp_owner));
	CHECK(u32 > 0 && owner > 0 && action > 0 && mark > 0 && sec > 0, "BTF built");
	CHECK_EQ(btf__add_datasec_var_info(btf, action, 0, 4), 0);
	CHECK_EQ(btf__add_datasec_var_info(btf, mark, 8, sizeof(struct af_xdp_owner)), 0);

	CHECK_EQ(af_xdp_btf_var_offset(btf, sec, AF_XDP_OWNER_VAR, sizeof(struct af_xdp_owner)), 8);
	CHECK_EQ(af_xdp_btf_var_offset(btf, sec, "xdp_redirect_xsk_action", 4), 0);
	/* The wrong size, name or section: not found. */
	CHECK_EQ(af_xdp_btf_var_offset(btf, sec, AF_XDP_OWNER_VAR, 4), -ENOENT);
	CHECK_EQ(af_xdp_btf_var_offset(btf, sec, "bpf_metadata_other", 4), -ENOENT);
	CHECK_EQ(af_xdp_btf_var_offset(btf, u32, "xdp_redirect_xsk_action", 4), -ENOENT);
	btf__free(btf);
}

int
main(void)
{
	RUN(test_parse_stat);
	RUN(test_self);
	RUN(test_child);
	RUN(test_describe);
	RUN(test_var_offset);
	return unit_summary();
}
