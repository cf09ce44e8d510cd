#include "file.h"

#include <string.h>

#include "../core/config.h"
#include "../decode/contents.h"
#include "../p2p/bufpool.h"

/* A type MPI_File_get_view returned: the caller frees it unless it is predefined. */
static void release_view_type(MPI_Datatype *type)
{
    int combiner;
    if (contents_combiner(*type, &combiner) == MPI_SUCCESS && contents_is_constructed(combiner))
        PMPI_Type_free(type);
}

/* Whether the file's view moves memory's bytes as they are: the "native" representation.
 * Asked at every call, since a view may be set where memcomm does not see it (a Fortran
 * binding calling PMPI_File_set_view). */
static bool native_view(MPI_File fh)
{
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    char datarep[MPI_MAX_DATAREP_STRING + 1] = "";
    if (PMPI_File_get_view(fh, &disp, &etype, &filetype, datarep) != MPI_SUCCESS)
        return false;
    release_view_type(&etype);
    if (filetype != etype) /* never freed twice, should an MPI return one handle for both */
        release_view_type(&filetype);
    return strcmp(datarep, "native") == 0;
}

bool file_takes(MPI_File fh, const void *buf, int64_t count, MPI_Datatype type, bool read,
                file_access *f)
{
    *f = (file_access){.read = read};
    if (config_get()->disable || fh == MPI_FILE_NULL || message_passes(type) ||
        !message_takes_analysed(buf, count, type, read, &f->m))
        return false;
    int element_size = 0;
    f->element = analysis_element(f->m.analysis, type);
    if (f->element == MPI_DATATYPE_NULL ||
        PMPI_Type_size(f->element, &element_size) != MPI_SUCCESS || element_size <= 0 ||
        f->m.bytes % element_size != 0 || !native_view(fh)) {
        message_done(&f->m);
        return false;
    }
    f->elements = f->m.bytes / element_size;
    return true;
}

bool file_stage(file_access *f, const void *buf, int64_t count, bool timed)
{
    const path_use use = f->read ? USE_FILE_READ : USE_FILE_WRITE;
    if (timed) {
        f->choice = sendpath_choose(f->m.analysis, use, f->m.bytes, 2, TRIAL_SEND);
        if (f->choice.timed)
            f->start = PMPI_Wtime(); /* packing and unpacking are part of the call's time */
    }
    const bool by_mpi = timed ? f->choice.path == SEND_BY_MPI : message_left_to_mpi(&f->m, use);
    if (by_mpi && !f->choice.timed) {
        message_done(&f->m);
        return false;
    }
    if (!by_mpi) {
        f->packed = f->read ? message_staging(&f->m, buf) : message_pack(&f->m, buf, count);
        if (!f->packed) { /* memory is short: the MPI's own path, not timed */
            message_done(&f->m);
            return false;
        }
    }
    return true;
}

void file_end(file_access *f, int rc, const MPI_Status *status, void *buf)
{
    if (f->packed && f->read)
        message_deliver_read(&f->m, f->packed, rc, status, buf);
    if (f->choice.timed && rc == MPI_SUCCESS)
        sendpath_record(f->m.analysis, &f->choice, PMPI_Wtime() - f->start);
    file_drop(f);
}

void file_drop(file_access *f)
{
    bufpool_give(f->packed);
    f->packed = NULL;
    message_done(&f->m);
}
