// SPDX-License-Identifier: GPL-2.0
/*
 * loader/witness_features.c: what the witness needs of a kernel, read from the kernel's BTF
 * (made up here with libbpf's BTF writer, shaped as each kernel has it) and libbpf's probes:
 * kfree_skb's drop reason only where btf_trace_kfree_skb takes a fourth parameter that is an
 * enum skb_drop_reason (5.17 on; before, skb and location), trampolines only with the tracing
 * type and tcp_rcv_state_process in BTF, the ring buffer as the probe says; each beside its
 * near miss. SYNTWIN_WITNESS_WITHOUT withholds what it names and nothing else.
 */
#include <bpf/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "witness_features.h"

struct shape {
	int kfree_params;		/* btf_trace_kfree_skb's parameters, 0: no typedef */
	bool reason_enum;		/* the fourth an enum skb_drop_reason (else an int) */
	bool rcv_state_func;		/* tcp_rcv_state_process in BTF */
};

static struct btf *make_btf(const struct shape *s)
{
	struct btf *b = btf__new_empty();
	int vp, ip, proto, e, skb, fn;

	if (!b)
		exit(2);
	vp = btf__add_ptr(b, 0);
	ip = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	skb = btf__add_ptr(b, btf__add_struct(b, "sk_buff", 8));
	e = btf__add_enum(b, "skb_drop_reason", 4);
	btf__add_enum_value(b, "SKB_NOT_DROPPED_YET", 0);
	if (s->kfree_params) {
		proto = btf__add_func_proto(b, 0);
		btf__add_func_param(b, "__data", vp);
		if (s->kfree_params > 1)
			btf__add_func_param(b, "skb", skb);
		if (s->kfree_params > 2)
			btf__add_func_param(b, "location", vp);
		if (s->kfree_params > 3)
			btf__add_func_param(b, "reason", s->reason_enum ? e : ip);
		if (s->kfree_params > 4) /* 6.12: the receiving socket */
			btf__add_func_param(b, "rx_sk", vp);
		btf__add_typedef(b, "btf_trace_kfree_skb", btf__add_ptr(b, proto));
	}
	if (s->rcv_state_func) {
		fn = btf__add_func_proto(b, ip);
		btf__add_func_param(b, "sk", vp);
		btf__add_func_param(b, "skb", skb);
		btf__add_func(b, "tcp_rcv_state_process", BTF_FUNC_GLOBAL, fn);
	}
	return b;
}

static int features(const struct shape *s, bool ringbuf, bool tracing,
		    struct witness_features *f)
{
	struct btf *b = make_btf(s);
	int err = witness_features_of(b, ringbuf, tracing, true, f);

	btf__free(b);
	return err;
}

int main(void)
{
	const struct shape k6_1 = { 4, true, true }, k6_12 = { 5, true, true },
			   k5_15 = { 3, false, true },
			   int_reason = { 4, false, true }, no_typedef = { 0, false, true },
			   no_func = { 4, true, false };
	struct witness_features f;
	char line[128];

	unsetenv("SYNTWIN_WITNESS_WITHOUT");
	features(&k6_1, true, true, &f);
	CHECK(f.have[WF_RINGBUF] && f.have[WF_DROP_REASON] && f.have[WF_TRAMPOLINE] &&
		      f.have[WF_TAKE], "6.1's shape: all four");
	witness_features_line(&f, line, sizeof(line));
	CHECK_STR_CONTAINS(line, "ring buffer, kfree_skb drop reasons, BPF trampolines, hash map "
				 "lookup-and-delete");
	features(&k6_12, true, true, &f);
	CHECK(f.have[WF_DROP_REASON], "6.12's shape (the socket after the reason)");
	/* before 5.17: kfree_skb(skb, location) */
	features(&k5_15, true, true, &f);
	CHECK(!f.have[WF_DROP_REASON] && f.have[WF_TRAMPOLINE], "5.15's shape: no drop reason");
	features(&int_reason, true, true, &f);
	CHECK(!f.have[WF_DROP_REASON], "a fourth parameter that is no enum skb_drop_reason");
	features(&no_typedef, true, true, &f);
	CHECK(!f.have[WF_DROP_REASON], "no btf_trace_kfree_skb");
	/* trampolines: the function in BTF and the tracing type, both */
	features(&no_func, true, true, &f);
	CHECK(!f.have[WF_TRAMPOLINE] && f.have[WF_DROP_REASON], "no tcp_rcv_state_process");
	features(&k6_1, true, false, &f);
	CHECK(!f.have[WF_TRAMPOLINE], "no tracing program type");
	features(&k6_1, false, true, &f);
	CHECK(!f.have[WF_RINGBUF] && f.have[WF_DROP_REASON], "no ring buffer");
	witness_features_of(NULL, true, true, true, &f);
	CHECK(f.have[WF_RINGBUF] && !f.have[WF_DROP_REASON] && !f.have[WF_TRAMPOLINE], "no BTF");
	/* the take: as its probe says */
	{
		struct btf *b = make_btf(&k6_1);

		witness_features_of(b, true, true, false, &f);
		btf__free(b);
		CHECK(!f.have[WF_TAKE] && f.have[WF_RINGBUF], "no lookup-and-delete on hash maps");
	}
	witness_features_line(&(struct witness_features){ 0 }, line, sizeof(line));
	CHECK_STR_CONTAINS(line, "none");
	/* withheld by name, and only what is named (a prefix is not a name) */
	setenv("SYNTWIN_WITNESS_WITHOUT", "drop_reasons", 1);
	features(&k6_1, true, true, &f);
	CHECK(f.have[WF_RINGBUF] && !f.have[WF_DROP_REASON] && f.have[WF_TRAMPOLINE],
	      "drop_reasons withheld");
	setenv("SYNTWIN_WITNESS_WITHOUT", "ring_buffer,trampolines", 1);
	features(&k6_1, true, true, &f);
	CHECK(!f.have[WF_RINGBUF] && f.have[WF_DROP_REASON] && !f.have[WF_TRAMPOLINE],
	      "two withheld");
	/* a name that is no feature's (a prefix, a misspelling, a space) is refused */
	setenv("SYNTWIN_WITNESS_WITHOUT", "drop", 1);
	CHECK_EQ_INT(features(&k6_1, true, true, &f), -1);
	setenv("SYNTWIN_WITNESS_WITHOUT", "drop-reasons", 1);
	CHECK_EQ_INT(features(&k6_1, true, true, &f), -1);
	setenv("SYNTWIN_WITNESS_WITHOUT", "ring_buffer, trampolines", 1);
	CHECK_EQ_INT(features(&k6_1, true, true, &f), -1);
	setenv("SYNTWIN_WITNESS_WITHOUT", "", 1);
	CHECK_EQ_INT(features(&k6_1, true, true, &f), 0);
	CHECK(f.have[WF_DROP_REASON] && f.have[WF_RINGBUF], "empty: nothing withheld");
	return check_report("witness_features");
}
