package postgres

import (
	"testing"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/cmstest"
)

func TestConformance(t *testing.T) {
	cmstest.Run(t, func(t *testing.T) cms.Store { return openTestStore(t, nil) })
}
