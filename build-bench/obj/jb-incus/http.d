build-bench/obj/jb-incus/http.o: jb-incus/http.c jb-incus/http.h
jb-incus/http.h:
