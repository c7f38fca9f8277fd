/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * What both forwarders share (l2fwd_common.c): option values accepted and
 * refused, and the statistics report in both formats.  No EAL, no kernel.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l2fwd_common.h"
#include "unit_test.h"

static void
test_mac(void)
{
	static const uint8_t want[L2FWD_ETH_ALEN] = { 0x02, 0xab, 0xCD, 0x00, 0x10, 0xff };
	static const char *const bad[] = {
		"", "02:ab:cd:00:10", "02:ab:cd:00:10:ff:00", "02:ab:cd:00:10:f", "2:ab:cd:00:10:ff",
		"02:ab:cd:00:10:fg", "02ab:cd:00:10:ff", "02:ab:cd:00:10:ff ", "0x:ab:cd:00:10:ff",
	};
	uint8_t mac[L2FWD_ETH_ALEN];
	char buf[18];

	CHECK_EQ(l2fwd_parse_mac("02:ab:CD:00:10:ff", mac), 0);
	CHECK(memcmp(mac, want, sizeof(want)) == 0, "parsed wrong");
	CHECK_EQ(l2fwd_parse_mac("02-ab-cd-00-10-ff", mac), 0);
	CHECK(strcmp(l2fwd_format_mac(want, buf), "02:ab:cd:00:10:ff") == 0, "formatted %s", buf);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(l2fwd_parse_mac(bad[i], mac) == -EINVAL, "'%s' accepted", bad[i]);

	l2fwd_default_peer_mac(7, mac);
	CHECK(strcmp(l2fwd_format_mac(mac, buf), "02:00:00:00:00:07") == 0, "default %s", buf);
}

static void
test_numbers(void)
{
	unsigned long long v = 0;
	double d = 0;

	CHECK_EQ(l2fwd_parse_uint("64", 1, 64, &v), 0);
	CHECK_EQ(v, 64);
	CHECK_EQ(l2fwd_parse_uint("65", 1, 64, &v), -ERANGE);
	CHECK_EQ(l2fwd_parse_uint("0", 1, 64, &v), -ERANGE);
	CHECK_EQ(l2fwd_parse_uint("-1", 0, 64, &v), -EINVAL);
	CHECK_EQ(l2fwd_parse_uint("+1", 0, 64, &v), -EINVAL);
	CHECK_EQ(l2fwd_parse_uint(" 1", 0, 64, &v), -EINVAL);
	CHECK_EQ(l2fwd_parse_uint("1x", 0, 64, &v), -EINVAL);
	CHECK_EQ(l2fwd_parse_uint("", 0, 64, &v), -EINVAL);
	CHECK_EQ(l2fwd_parse_uint("99999999999999999999999", 0, 64, &v), -ERANGE);

	CHECK_EQ(l2fwd_parse_seconds("2.5", 10, &d), 0);
	CHECK(d == 2.5, "%f", d);
	CHECK_EQ(l2fwd_parse_seconds("0", 10, &d), 0);
	CHECK_EQ(l2fwd_parse_seconds("11", 10, &d), -ERANGE);
	CHECK_EQ(l2fwd_parse_seconds("-1", 10, &d), -EINVAL);
	CHECK_EQ(l2fwd_parse_seconds("nan", 10, &d), -EINVAL);
	CHECK_EQ(l2fwd_parse_seconds("1s", 10, &d), -EINVAL);
}

static void
test_peer_mac(void)
{
	uint8_t mac[L2FWD_ETH_ALEN];
	char port[8];
	const char *why = NULL;

	CHECK_EQ(l2fwd_parse_peer_mac("3,02:00:00:00:00:09", port, sizeof(port), mac, &why), 0);
	CHECK(strcmp(port, "3") == 0 && mac[5] == 9, "port %s mac[5] %u", port, mac[5]);
	CHECK_EQ(l2fwd_parse_peer_mac("veth1,02:00:00:00:00:09", port, sizeof(port), mac, &why), 0);
	CHECK(strcmp(port, "veth1") == 0, "port %s", port);
	CHECK_EQ(l2fwd_parse_peer_mac("02:00:00:00:00:09", port, sizeof(port), mac, &why), -EINVAL);
	CHECK(why && strstr(why, "PORT,MAC"), "why: %s", why);
	CHECK_EQ(l2fwd_parse_peer_mac(",02:00:00:00:00:09", port, sizeof(port), mac, &why), -EINVAL);
	CHECK_EQ(l2fwd_parse_peer_mac("1,02:00:00", port, sizeof(port), mac, &why), -EINVAL);
	CHECK(why && strstr(why, "MAC"), "why: %s", why);
	CHECK_EQ(l2fwd_parse_peer_mac("toolongname,02:00:00:00:00:09", port, sizeof(port), mac,
				      &why), -EINVAL);
}

/* The report, printed into memory. */
static char *
report(struct l2fwd_report *r, const struct l2fwd_counts *now, bool final)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	l2fwd_report_print(r, f, now, final);
	fclose(f);
	return buf;
}

static void
test_report(void)
{
	struct l2fwd_report r;
	struct l2fwd_counts now[2] = {
		{ .rx = 1000, .tx = 900, .dropped = 5 },
		{ .rx = 905, .tx = 995, .dropped = 5 },
	};
	const char *out;

	memset(&r, 0, sizeof(r));
	r.program = "l2fwd-test";
	r.nb_ports = 2;
	r.port_id[0] = 0;
	r.port_id[1] = 1;
	snprintf(r.name[0], sizeof(r.name[0]), "net_af_xdp0 (veth0)");
	snprintf(r.name[1], sizeof(r.name[1]), "we\"ird\\");
	l2fwd_report_start(&r);

	out = report(&r, now, false);
	CHECK(strstr(out, "l2fwd-test statistics at") != NULL, "%s", out);
	CHECK(strstr(out, "net_af_xdp0 (veth0)") != NULL, "%s", out);
	CHECK(strstr(out, " all ") != NULL && strstr(out, "1905") != NULL, "totals: %s", out);

	r.json = true;
	now[0].rx = 2000;
	out = report(&r, now, true);
	CHECK(strncmp(out, "{\"program\":\"l2fwd-test\",\"final\":true,", 37) == 0, "%s", out);
	CHECK(strstr(out, "\"name\":\"we\\\"ird\\\\\"") != NULL, "escaped: %s", out);
	CHECK(strstr(out, "{\"port\":0,\"name\":\"net_af_xdp0 (veth0)\",\"rx\":2000,\"tx\":900,"
		      "\"dropped\":5,") != NULL, "%s", out);
	CHECK(strstr(out, "\"total\":{\"rx\":2905,\"tx\":1895,\"dropped\":10,") != NULL, "%s", out);
	CHECK(out[strlen(out) - 1] == '\n' && strchr(out, '\n') == out + strlen(out) - 1,
	      "one line: %s", out);
}

int
main(void)
{
	RUN(test_mac);
	RUN(test_numbers);
	RUN(test_peer_mac);
	RUN(test_report);
	return unit_summary();
}
