build-bench/obj/libcommon/sandbox-linux.o: libcommon/sandbox-linux.c \
 libcommon/log.h libcommon/sandbox.h
libcommon/log.h:
libcommon/sandbox.h:
