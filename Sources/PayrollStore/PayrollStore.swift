// PayrollStore — see ../shared/design/ARCHITECTURE.md for this module's role.
