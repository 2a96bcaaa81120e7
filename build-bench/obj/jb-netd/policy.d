build-bench/obj/jb-netd/policy.o: jb-netd/policy.c jb-netd/policy.h
jb-netd/policy.h:
