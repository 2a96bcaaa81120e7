build-bench/obj/libcommon/repoconf.o: libcommon/repoconf.c \
 libcommon/duration.h libcommon/repoconf.h libcommon/yamltree.h
libcommon/duration.h:
libcommon/repoconf.h:
libcommon/yamltree.h:
