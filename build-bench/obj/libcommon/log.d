build-bench/obj/libcommon/log.o: libcommon/log.c libcommon/log.h
libcommon/log.h:
