/* The MPI-IO reads and writes memcomm carries, each named once (interpose/file.c defines the
 * C calls, entry.h declares them for the Fortran bindings, fortran.c defines those): X(DIR,
 * NAME, UPPER, AT) per form. DIR: read or write; NAME: the call without its `MPI_File_`
 * prefix; UPPER: NAME in capitals, for the Fortran names; AT: OFFSET for the explicit-offset
 * calls, empty for those of a file pointer. A split collective is its begin, NAME_begin, and
 * its end, NAME_end. */
#ifndef MEMCOMM_FILE_FORMS_H
#define MEMCOMM_FILE_FORMS_H

#define FILE_BLOCKING_FORMS(X)                                                                 \
    X(read, read_at, READ_AT, OFFSET)                                                          \
    X(write, write_at, WRITE_AT, OFFSET)                                                       \
    X(read, read_at_all, READ_AT_ALL, OFFSET)                                                  \
    X(write, write_at_all, WRITE_AT_ALL, OFFSET)                                               \
    X(read, read, READ, )                                                                      \
    X(write, write, WRITE, )                                                                   \
    X(read, read_all, READ_ALL, )                                                              \
    X(write, write_all, WRITE_ALL, )                                                           \
    X(read, read_shared, READ_SHARED, )                                                        \
    X(write, write_shared, WRITE_SHARED, )                                                     \
    X(read, read_ordered, READ_ORDERED, )                                                      \
    X(write, write_ordered, WRITE_ORDERED, )

#define FILE_NONBLOCKING_FORMS(X)                                                              \
    X(read, iread_at, IREAD_AT, OFFSET)                                                        \
    X(write, iwrite_at, IWRITE_AT, OFFSET)                                                     \
    X(read, iread_at_all, IREAD_AT_ALL, OFFSET)                                                \
    X(write, iwrite_at_all, IWRITE_AT_ALL, OFFSET)                                             \
    X(read, iread, IREAD, )                                                                    \
    X(write, iwrite, IWRITE, )                                                                 \
    X(read, iread_all, IREAD_ALL, )                                                            \
    X(write, iwrite_all, IWRITE_ALL, )                                                         \
    X(read, iread_shared, IREAD_SHARED, )                                                      \
    X(write, iwrite_shared, IWRITE_SHARED, )

#define FILE_SPLIT_FORMS(X)                                                                    \
    X(read, read_at_all, READ_AT_ALL, OFFSET)                                                  \
    X(write, write_at_all, WRITE_AT_ALL, OFFSET)                                               \
    X(read, read_all, READ_ALL, )                                                              \
    X(write, write_all, WRITE_ALL, )                                                           \
    X(read, read_ordered, READ_ORDERED, )                                                      \
    X(write, write_ordered, WRITE_ORDERED, )

/* The C parameter and argument an explicit offset adds, and the C buffer of each direction. */
#define FILE_AT_PARAM_OFFSET , MPI_Offset offset
#define FILE_AT_ARG_OFFSET , offset
#define FILE_AT_PARAM_
#define FILE_AT_ARG_
#define FILE_AT_PARAM(AT) FILE_AT_PARAM_##AT
#define FILE_AT_ARG(AT) FILE_AT_ARG_##AT
#define FILE_BUF_read void *
#define FILE_BUF_write const void *

#endif
