package admin

// This file only makes package admin exist on the branch that vendors the
// browser libraries (admin/static/vendor), so that admin/vendor_test.go has a
// package; the admin's own files hold the package documentation.
