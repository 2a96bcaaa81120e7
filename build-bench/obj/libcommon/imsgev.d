build-bench/obj/libcommon/imsgev.o: libcommon/imsgev.c libcommon/imsgev.h \
 libcommon/imsg.h
libcommon/imsgev.h:
libcommon/imsg.h:
