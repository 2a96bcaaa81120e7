build-bench/obj/libcommon/imsg.o: libcommon/imsg.c libcommon/imsg.h
libcommon/imsg.h:
