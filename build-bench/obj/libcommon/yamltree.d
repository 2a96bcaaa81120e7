build-bench/obj/libcommon/yamltree.o: libcommon/yamltree.c \
 libcommon/duration.h libcommon/yamltree.h
libcommon/duration.h:
libcommon/yamltree.h:
