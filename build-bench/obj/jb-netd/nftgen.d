build-bench/obj/jb-netd/nftgen.o: jb-netd/nftgen.c jb-netd/policy.h \
 jb-netd/nftgen.h
jb-netd/policy.h:
jb-netd/nftgen.h:
