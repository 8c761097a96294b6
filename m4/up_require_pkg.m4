# UP_REQUIRE_PKG(VARIABLE-PREFIX, PKG-CONFIG-MODULE, DEBIAN-PACKAGE)
# -------------------------------------------------------------------
# Find a library through pkg-config, or stop with one line that names the
# Debian package to install.
AC_DEFUN([UP_REQUIRE_PKG], [
  PKG_CHECK_MODULES([$1], [$2], [],
    [AC_MSG_ERROR([$2 not found: install the Debian package $3 (apt-get install $3)])])
])

# UP_REQUIRE_HEADER_LIB(VARIABLE-PREFIX, HEADER, LIBRARY, FUNCTION, DEBIAN-PACKAGE)
# ----------------------------------------------------------------------------------
# For libraries that ship no .pc file: check the header and the library, set
# PREFIX_LIBS, or stop naming the Debian package.
AC_DEFUN([UP_REQUIRE_HEADER_LIB], [
  AC_CHECK_HEADER([$2], [],
    [AC_MSG_ERROR([$2 not found: install the Debian package $5 (apt-get install $5)])])
  up_save_LIBS=$LIBS
  AC_CHECK_LIB([$3], [$4], [$1_LIBS=-l$3],
    [AC_MSG_ERROR([lib$3 not found: install the Debian package $5 (apt-get install $5)])])
  LIBS=$up_save_LIBS
  AC_SUBST([$1_LIBS])
])
