//! A model per role: one client per [`LlmRole`], each call sent to the client
//! of its key's role. The engine knows nothing of it; it asks
//! [`LlmClient::for_role`] which client served a call, for the provider and
//! model it records and the prices its cost is reckoned with.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;

use super::{DeltaSink, LlmClient, LlmError, LlmRequest, LlmResponse, LlmRole};

/// Sends each call to the client of its role.
pub struct RoleRouter {
    clients: BTreeMap<LlmRole, Arc<dyn LlmClient>>,
}

impl RoleRouter {
    /// A router over `client_of`'s client for every role.
    pub fn new(mut client_of: impl FnMut(LlmRole) -> Arc<dyn LlmClient>) -> Self {
        Self { clients: LlmRole::ALL.into_iter().map(|role| (role, client_of(role))).collect() }
    }

    fn client(&self, role: LlmRole) -> &dyn LlmClient {
        self.clients[&role].as_ref()
    }
}

impl LlmClient for RoleRouter {
    /// The builder's provider (the run's headline; each role's is [`LlmClient::for_role`]'s).
    fn provider(&self) -> &str {
        self.client(LlmRole::DagBuild).provider()
    }

    /// The builder's model.
    fn model(&self) -> &str {
        self.client(LlmRole::DagBuild).model()
    }

    fn complete<'a>(
        &'a self,
        request: &'a LlmRequest,
        sink: DeltaSink,
    ) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
        self.client(request.key.role).complete(request, sink)
    }

    fn for_role(&self, role: LlmRole) -> Option<&dyn LlmClient> {
        Some(self.client(role))
    }
}
