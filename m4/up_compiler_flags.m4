# UP_CHECK_CFLAGS(VARIABLE, FLAGS...)
# -----------------------------------
# Append each flag the C compiler accepts to VARIABLE.
AC_DEFUN([UP_CHECK_CFLAGS], [
  for up_flag in $2; do
    AC_MSG_CHECKING([whether $CC accepts $up_flag])
    up_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS $up_flag -Werror"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
      [AC_MSG_RESULT([yes]); $1="$$1 $up_flag"],
      [AC_MSG_RESULT([no])])
    CFLAGS=$up_save_CFLAGS
  done
])
