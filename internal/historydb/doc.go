// Package historydb keeps BenchmarkSchedule histories in PostgreSQL: every run a schedule
// recorded, with every row and figure, for as long as the caller keeps them (a year of
// nightly runs for 20 targets is some 263,000 figures, past what a ConfigMap can hold). A
// run is appended once, in one transaction, keyed by its UID; a schedule's runs are loaded
// in scheduled-time order and every value read is checked again with internal/history's
// checks, the ones the ConfigMap reader applies, since whoever can write the database could
// have written anything. Figures are stored as integers: thousandths of the figure's unit
// (ns for the µs figures, milli-requests per second for capacity).
//
// Grafana reads the same tables; docs/history.md gives the query for one series over a year.
package historydb
