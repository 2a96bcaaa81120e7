build-bench/obj/jb-incus/ws.o: jb-incus/ws.c jb-incus/http.h \
 jb-incus/ws.h
jb-incus/http.h:
jb-incus/ws.h:
