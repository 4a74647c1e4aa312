/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_MEM_H__
#define __CXLV_MEM_H__

#include <linux/types.h>

/*
 * The memory half of the device model: the reserved or borrowed range under
 * a device, its window's fence, and hibernation refused while either exists.
 * cxlv.h, the topology half, includes it; both are one layer.
 */

struct cxlv_borrow;
struct cxlv_dev;
struct cxlv_layout;
struct cxlv_names;
struct cxlv_params;
struct resource;

/* cxlv_mem.c: reserved-range validation, layout and mapping */
int cxlv_fwmap_is_ram(u64 start, u64 last);
int cxlv_mem_validate(const struct cxlv_params *p, struct cxlv_layout *l,
		       bool borrowed);
bool cxlv_mem_overlaps(const struct cxlv_params *a,
		       const struct cxlv_params *b);
int cxlv_mem_claim(struct cxlv_dev *cxlv);
void cxlv_mem_unclaim(struct cxlv_dev *cxlv);
void cxlv_mem_free(struct cxlv_dev *cxlv);
int cxlv_mem_setup(struct cxlv_dev *cxlv);
int cxlv_mem_guard(struct cxlv_dev *cxlv);
u64 cxlv_default_serial(u64 memstart);

/* cxlv_borrow.c: System RAM borrowed from the kernel and given back */
int cxlv_borrow(struct cxlv_params *p);
int cxlv_borrow_release(u64 start);
struct cxlv_borrow *cxlv_borrow_get(const struct cxlv_params *p);
struct resource *cxlv_borrow_res(struct cxlv_borrow *b);
u64 cxlv_borrow_start(struct cxlv_borrow *b);
int cxlv_borrow_open(struct cxlv_borrow *b, struct cxlv_dev *cxlv);
void cxlv_borrow_close(struct cxlv_borrow *b);
ssize_t cxlv_borrow_show(char *buf);
void cxlv_borrow_free_names(struct cxlv_names *n);
int cxlv_borrow_init(void);
void cxlv_borrow_exit(void);

/* cxlv_window.c: the CXL window's fence and the module pin */
void cxlv_window_init(struct cxlv_dev *cxlv);
void cxlv_window_exit(struct cxlv_dev *cxlv);
void cxlv_window_region_added(struct cxlv_dev *cxlv);
void cxlv_window_region_removed(struct cxlv_dev *cxlv, struct resource *hpa);
int cxlv_window_check(struct cxlv_dev *cxlv);
int cxlv_window_split(struct cxlv_dev *cxlv);

/* cxlv_pm.c: hibernation refused while a device or borrowed range exists */
int cxlv_pm_init(void);
void cxlv_pm_exit(void);

#endif /* __CXLV_MEM_H__ */
