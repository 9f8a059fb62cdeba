function [t, start, len] = m2cu_cell_map_with(f, text, s, l)
%M2CU_CELL_MAP_WITH  cellfun(f, c, 'UniformOutput', false) of an m2cu cell of texts (the text,
%   and each piece's offset and length) where f gives a text of each text: a cell of texts of
%   c's size (m2cu_map_texts over the pieces' positions, in the cell's shape).
piece_of = @(k) f(text(s(k) + 1:s(k) + l(k)));
[t, start, len] = m2cu_map_texts(piece_of, reshape(1:numel(l), size(l)));
end
