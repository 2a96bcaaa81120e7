build-bench/obj/libcommon/config.o: libcommon/config.c libcommon/config.h \
 libcommon/yamltree.h
libcommon/config.h:
libcommon/yamltree.h:
