build-bench/obj/libcommon/duration.o: libcommon/duration.c \
 libcommon/duration.h
libcommon/duration.h:
