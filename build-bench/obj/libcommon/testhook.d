build-bench/obj/libcommon/testhook.o: libcommon/testhook.c
