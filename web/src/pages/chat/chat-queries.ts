import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type ResponseOf } from '../../api/client';

export type Conversation = ResponseOf<'/api/v1/chat/conversations', 'get'>['items'][number];
export type ChatMessage = ResponseOf<'/api/v1/chat/conversations/{conversation_id}/messages', 'get'>['items'][number];

export const chatKeys = {
  conversations: ['chat', 'conversations'] as const,
  messages: (id: string) => ['chat', 'messages', id] as const,
};

export function useConversations() {
  return useQuery({ queryKey: chatKeys.conversations, queryFn: () => unwrap(api.GET('/api/v1/chat/conversations', { params: { query: { limit: 100 } } })) });
}

const PAGE = 200;

/** A conversation's latest messages (at most 200), oldest first; re-read every 2 s while a reply is still being answered. */
export function useMessages(conversationId: string | undefined) {
  return useQuery({
    queryKey: chatKeys.messages(conversationId ?? 'none'),
    enabled: Boolean(conversationId),
    refetchInterval: (q) => (q.state.data?.items.some((m) => m.status === 'streaming') ? 2_000 : false),
    queryFn: async () => {
      const page = (offset: number) => unwrap(api.GET('/api/v1/chat/conversations/{conversation_id}/messages', { params: { path: { conversation_id: conversationId! }, query: { limit: PAGE, offset } } }));
      const first = await page(0);
      // the list is oldest first: a long conversation is read again from its latest page
      return first.total > PAGE ? page(first.total - PAGE) : first;
    },
  });
}
