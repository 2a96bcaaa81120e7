build-bench/obj/libcommon/cmdtab.o: libcommon/cmdtab.c libcommon/cmdtab.h
libcommon/cmdtab.h:
