package adminapi

import "github.com/appaccess/appaccess/accessapi/access"

// routes maps every management route, as a ServeMux pattern below the
// prefix, to its handler.
func (h *Handler) routes() map[string]route {
	return map[string]route{
		"GET /health": h.health,

		"POST /apps":                     createApp,
		"GET /apps":                      listApps,
		"GET /apps/{app}":                showApp,
		"PATCH /apps/{app}":              updateApp,
		"DELETE /apps/{app}":             deleteApp,
		"POST /apps/{app}/rotate_secret": rotateSecret,
		"GET /apps/{app}/activity":       showActivity,

		"POST /apps/{app}/licenses":             createLicenses,
		"GET /apps/{app}/licenses":              listLicenses,
		"POST /apps/{app}/licenses/lookup":      lookupLicense,
		"GET /apps/{app}/licenses/{license}":    showLicense,
		"DELETE /apps/{app}/licenses/{license}": deleteLicense,

		"GET /apps/{app}/users":                    listUsers,
		"GET /apps/{app}/users/{user}":             showUser,
		"GET /apps/{app}/users/{user}/activations": listActivations,
		"DELETE /apps/{app}/users/{user}":          userAction((*access.Service).DeleteUser),
		"POST /apps/{app}/users/{user}/ban":        banUser,
		"POST /apps/{app}/users/{user}/unban":      userAction((*access.Service).UnbanUser),
		"DELETE /apps/{app}/users/{user}/devices":  userAction((*access.Service).ResetDevices),
		"DELETE /apps/{app}/users/{user}/sessions": userAction((*access.Service).EndSessions),
		"POST /apps/{app}/users/{user}/grant":      grant,
		"POST /apps/{app}/users/{user}/password":   resetPassword,

		"GET /apps/{app}/variables":           listVariables,
		"PUT /apps/{app}/variables/{name}":    setVariable,
		"DELETE /apps/{app}/variables/{name}": deleteVariable,
		"POST /apps/{app}/files":              streaming(uploadFile),
		"GET /apps/{app}/files":               listFiles,
		"DELETE /apps/{app}/files/{file}":     deleteFile,

		"GET /export":                   streaming(h.export),
		"POST /import":                  streaming(h.importStore),
		"POST /backup":                  backup,
		"GET /apps/{app}/audit":         listAudit,
		"GET /audit":                    listServerAudit,
		"POST /apps/{app}/keys":         createSellerKey,
		"GET /apps/{app}/keys":          listSellerKeys,
		"DELETE /apps/{app}/keys/{key}": revokeSellerKey,

		"POST /apps/{app}/webhooks":                                           createWebhook,
		"GET /apps/{app}/webhooks":                                            listWebhooks,
		"GET /apps/{app}/webhooks/{webhook}":                                  showWebhook,
		"PATCH /apps/{app}/webhooks/{webhook}":                                updateWebhook,
		"DELETE /apps/{app}/webhooks/{webhook}":                               deleteWebhook,
		"POST /apps/{app}/webhooks/{webhook}/rotate_secret":                   rotateWebhookSecret,
		"GET /apps/{app}/webhooks/{webhook}/deliveries":                       listDeliveries,
		"GET /apps/{app}/webhooks/{webhook}/deliveries/{delivery}":            showDelivery,
		"POST /apps/{app}/webhooks/{webhook}/deliveries/{delivery}/redeliver": redeliver,
		"POST /apps/{app}/signing_keys":                                       rotateSigningKey,
		"DELETE /apps/{app}/signing_keys/{kid}":                               retireSigningKey,

		"POST /admins":                      createAdmin,
		"GET /admins":                       listAdmins,
		"DELETE /admins/{admin}":            deleteAdmin,
		"POST /admins/{admin}/password":     setAdminPassword,
		"POST /admins/{admin}/totp":         beginTOTP,
		"POST /admins/{admin}/totp/confirm": confirmTOTP,
		"DELETE /admins/{admin}/totp":       disableTOTP,
	}
}
