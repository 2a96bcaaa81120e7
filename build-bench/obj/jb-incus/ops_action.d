build-bench/obj/jb-incus/ops_action.o: jb-incus/ops_action.c \
 /usr/include/json-c/json.h /usr/include/json-c/arraylist.h \
 /usr/include/json-c/debug.h /usr/include/json-c/json_c_version.h \
 /usr/include/json-c/json_object.h /usr/include/json-c/json_inttypes.h \
 /usr/include/json-c/json_config.h /usr/include/json-c/json_types.h \
 /usr/include/json-c/printbuf.h \
 /usr/include/json-c/json_object_iterator.h \
 /usr/include/json-c/json_pointer.h /usr/include/json-c/json_tokener.h \
 /usr/include/json-c/json_util.h /usr/include/json-c/linkhash.h \
 jb-incus/incus.h jb-incus/http.h libcommon/log.h jb-incus/ops.h \
 libcommon/jb_msg.h
/usr/include/json-c/json.h:
/usr/include/json-c/arraylist.h:
/usr/include/json-c/debug.h:
/usr/include/json-c/json_c_version.h:
/usr/include/json-c/json_object.h:
/usr/include/json-c/json_inttypes.h:
/usr/include/json-c/json_config.h:
/usr/include/json-c/json_types.h:
/usr/include/json-c/printbuf.h:
/usr/include/json-c/json_object_iterator.h:
/usr/include/json-c/json_pointer.h:
/usr/include/json-c/json_tokener.h:
/usr/include/json-c/json_util.h:
/usr/include/json-c/linkhash.h:
jb-incus/incus.h:
jb-incus/http.h:
libcommon/log.h:
jb-incus/ops.h:
libcommon/jb_msg.h:
