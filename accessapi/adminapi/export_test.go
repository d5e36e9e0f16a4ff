package adminapi

import "slices"

// RoutePatterns are the patterns of every management route, sorted.
func RoutePatterns() []string {
	var out []string
	for p := range (&Handler{}).routes() {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}
