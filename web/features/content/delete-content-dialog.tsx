import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { toast } from "@/hooks/use-toast";
import { apiRequest } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

export function DeleteContentDialog({
  item,
  onClose,
}: {
  item: { id: string; title: string } | null;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => apiRequest("DELETE", `/api/content/${id}`),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.contentList });
      await queryClient.invalidateQueries({ queryKey: queryKeys.earningsStats });
      toast({ title: "Content deleted", description: "Buyers who already paid keep their access." });
      onClose();
    },
    onError: () => toast({ title: "Error", description: "Failed to delete content", variant: "destructive" }),
  });
  return (
    <Dialog open={!!item} onOpenChange={(open) => !open && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Delete content</DialogTitle>
          <DialogDescription>Are you sure you want to delete "{item?.title}"? This cannot be undone.</DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="destructive" disabled={remove.isPending} onClick={() => item && remove.mutate(item.id)}>
            {remove.isPending && <Spinner className="size-4 text-white" />}
            Delete
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
