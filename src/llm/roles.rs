//! A model per role: one client per [`LlmRole`], each call sent to the client
//! of its key's role. The engine knows nothing of it; it asks
//! [`LlmClient::for_role`] which client served a call, for the provider and
//! model it records and the prices its cost is reckoned with.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;

use super::{DeltaSink, LlmClient, LlmError, LlmRequest, LlmResponse};
use crate::domain::{LlmRole, Provider};

/// Sends each call to the client of its role.
pub struct RoleRouter {
    clients: BTreeMap<LlmRole, Arc<dyn LlmClient>>,
}

impl RoleRouter {
    /// A router over `client_of`'s client for every role (its first error, if any).
    pub fn new<E>(mut client_of: impl FnMut(LlmRole) -> Result<Arc<dyn LlmClient>, E>) -> Result<Self, E> {
        let clients = LlmRole::ALL.into_iter().map(|role| Ok((role, client_of(role)?))).collect::<Result<_, E>>()?;
        Ok(Self { clients })
    }

    fn client(&self, role: LlmRole) -> &dyn LlmClient {
        self.clients[&role].as_ref()
    }
}

impl LlmClient for RoleRouter {
    /// The builder's provider (the run's headline; each role's is [`LlmClient::for_role`]'s).
    fn provider(&self) -> Provider {
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

    fn batch_hub(&self) -> Option<&super::BatchHub> {
        self.clients.values().find_map(|client| client.batch_hub())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{CallKey, TokenUsage};
    use crate::llm::{ignore_stream, serving};

    /// Answers with its own name; `price` USD per token.
    struct Named(&'static str, f64);

    impl LlmClient for Named {
        fn provider(&self) -> Provider {
            "stub".into()
        }

        fn model(&self) -> &str {
            self.0
        }

        fn complete<'a>(&'a self, _: &'a LlmRequest, _: DeltaSink) -> BoxFuture<'a, Result<LlmResponse, LlmError>> {
            Box::pin(async move { Ok(LlmResponse { text: self.0.into(), ..LlmResponse::default() }) })
        }

        fn cost_usd(&self, usage: TokenUsage) -> f64 {
            usage.total() as f64 * self.1
        }
    }

    #[tokio::test]
    async fn each_call_goes_to_its_roles_client_which_names_and_prices_it() {
        let critic: Arc<dyn LlmClient> = Arc::new(Named("critic-m", 2.0));
        let builder: Arc<dyn LlmClient> = Arc::new(Named("builder-m", 1.0));
        let router = RoleRouter::new(|role| {
            Ok::<_, ()>(if role == LlmRole::LayerReview { critic.clone() } else { builder.clone() })
        })
        .unwrap();
        assert_eq!(router.model(), "builder-m", "the run's headline model is the builder's");
        let usage = TokenUsage { prompt_tokens: 3, completion_tokens: 2, ..Default::default() };
        for (role, model, cost) in [(LlmRole::LayerReview, "critic-m", 10.0), (LlmRole::Judge, "builder-m", 5.0)] {
            let key = CallKey::run_wide(role);
            let request = LlmRequest { key, messages: Vec::new(), schema: None };
            assert_eq!(router.complete(&request, ignore_stream()).await.unwrap().text, model);
            let served = serving(&router, role);
            assert_eq!((served.model(), served.cost_usd(usage)), (model, cost));
        }
        let alone = Named("alone", 0.0);
        assert_eq!(serving(&alone, LlmRole::Judge).model(), "alone", "a client that does not route serves itself");
    }
}
