package router

import (
	"testing"

	"github.com/intentsrv/intentsrv/operations"
)

// TestAnAcronymMeetsTheNameItAbbreviates: an API that writes "TFA" and
// /profile/tfa is asked about Two Factor Authentication, and one that
// writes "QoS" about the Quality of Service. The words of the name meet
// the operation that says them only by their initials; words that are
// not a name ("a specific self-hosted runner") spell no acronym.
func TestAnAcronymMeetsTheNameItAbbreviates(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("acct.profile.post_profile_tfa_disable", "POST", "Turns TFA off for your login.", "/profile/tfa/disable", operations.KindWrite),
		httpOp("acct.profile.post_profile_tfa_enable", "POST", "Turns TFA on for your login.", "/profile/tfa/enable", operations.KindWrite),
		httpOp("acct.account.put_account_settings", "PUT", "Updates the account's settings: which factor types a login may use, and the length of sessions.", "/account/settings", operations.KindWrite),
		httpOp("acct.account.post_account_authentication", "POST", "Authenticates with a password and returns a token.", "/account/authentication", operations.KindWrite),
		httpOp("net.switch.get_switch_qos_rules", "GET", "Lists the QoS rules of a switch.", "/switches/{serial}/qos/rules", operations.KindRead),
		httpOp("net.camera.get_camera_quality", "GET", "Returns the video quality and retention settings of a camera.", "/cameras/{serial}/quality", operations.KindRead),
		httpOp("net.service.get_services", "GET", "Lists the services a network runs.", "/services", operations.KindRead),
		httpOp("ci.user.get_user_ssh_keys", "GET", "Lists the SSH keys of the authenticated user.", "/user/ssh_keys", operations.KindRead),
		httpOp("ci.runners.get_runners_id", "GET", "Gets a runner of an organization.", "/orgs/{org}/runners/{id}", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "acronyms", map[string]string{
		"Disable Two Factor Authentication for the account": "acct.profile.post_profile_tfa_disable",
		"List the Quality of Service rules":                 "net.switch.get_switch_qos_rules",
	})
	leads(t, New(ops, Options{}), map[string]string{
		"Gets a specific self-hosted runner of an organization.": "ci.runners.get_runners_id",
		"get a specific self-hosted runner of an organization":   "ci.runners.get_runners_id",
	})
}

// TestAnAcronymTheCatalogTiesToItsWords: words in lower case spell an
// acronym only where some operation says the acronym with them, here
// the address /settings/cse/identities and its text's "client-side
// encryption": the configuration that says only "CSE" answers a request
// for the client-side encryption configuration, before the one of
// encryption between the client and the server.
func TestAnAcronymTheCatalogTiesToItsWords(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("mail.cse.get_identities", "GET", "Lists the client-side encryption (CSE) identities of a user.", "/users/{userId}/settings/cse/identities", operations.KindRead),
		httpOp("mail.cse.get_config", "GET", "Gets the CSE configuration of a user.", "/users/{userId}/settings/cse/config", operations.KindRead),
		httpOp("mail.encryption.get_encryption", "GET", "Gets the configuration of encryption in transit between the client and the server.", "/users/{userId}/settings/encryption", operations.KindRead),
		httpOp("mail.settings.get_settings", "GET", "Gets the settings of a user.", "/users/{userId}/settings", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "lower-acronyms", map[string]string{
		"get the client-side encryption configuration": "mail.cse.get_config",
	})
}

// TestAcronymsToTheLastLetter: initials at the end of the alphabet are
// read as any others (a catalog that writes "ZZZ").
func TestAcronymsToTheLastLetter(t *testing.T) {
	ops := []*operations.Operation{
		httpOp("z.zzz.get_zzz", "GET", "Lists the ZZZ entries.", "/zzz", operations.KindRead),
		httpOp("z.zeta.get_zeta", "GET", "Lists the Zeta entries.", "/zeta", operations.KindRead),
	}
	leadsOnlyWith(t, ops, "acronyms", map[string]string{
		"Get the Zulu Zebra Zeta entries": "z.zzz.get_zzz",
	})
}
